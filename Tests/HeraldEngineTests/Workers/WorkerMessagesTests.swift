import HeraldEngine
import HeraldTestSupport
import XCTest

final class WorkerMessagesTests: XCTestCase {
    private func decode(_ text: String) -> Result<Command, CommandDecoder.Refusal> {
        CommandDecoder.decode(Array(text.utf8))
    }

    private func refusal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> EngineError? {
        guard case .failure(let refusal) = decode(text) else {
            XCTFail("\(text) was taken", file: file, line: line)
            return nil
        }
        return refusal.error
    }

    func testHelloIsDecodedWithDefaults() throws {
        let command = try decode(#"{"type":"hello","role":"worker","name":"gpu-1","kinds":["encode","encode"],"version":1}"#).get()
        XCTAssertEqual(command, .hello(WorkerHello(name: "gpu-1", kinds: ["encode"], slots: 1)))
    }

    func testBadHellosNameTheField() {
        XCTAssertEqual(
            refusal(#"{"type":"hello","role":"viewer","name":"a","kinds":["x"],"version":1}"#)?.message, #"role: must be "worker""#)
        XCTAssertTrue(
            refusal(#"{"type":"hello","role":"worker","name":"a","kinds":["x"],"version":2}"#)?.message.contains("speaks 1") == true)
        XCTAssertTrue(refusal(#"{"type":"hello","role":"worker","name":"","kinds":["x"],"version":1}"#)?.message.hasPrefix("name:") == true)
        XCTAssertTrue(refusal(#"{"type":"hello","role":"worker","name":"a","kinds":[],"version":1}"#)?.message.hasPrefix("kinds:") == true)
        XCTAssertTrue(
            refusal(#"{"type":"hello","role":"worker","name":"a","kinds":["x"],"slots":0,"version":1}"#)?.message.hasPrefix("slots:")
                == true)
    }

    func testReportsRoundTripThroughTheirJSON() throws {
        let reports: [WorkerReport] = [
            .progress(job: JobID("j-a"), attempt: 2, JobProgress(completed: 3, total: 9, message: "item 3")),
            .log(job: JobID("j-a"), attempt: 2, lines: [LogLine(stream: .stderr, text: "slow disk")], skipped: 4),
            .results(job: JobID("j-a"), attempt: 2, items: [1, "two"]),
            .result(job: JobID("j-a"), attempt: 2, summary: ["items": 9]),
            .fail(job: JobID("j-a"), attempt: 2, error: "exit status 3", exit: ["code": 3], cancelled: false),
            .fail(job: JobID("j-a"), attempt: 2, error: "cancelled", exit: ["signal": "TERM"], cancelled: true),
            .beat, .drain,
        ]
        for report in reports {
            XCTAssertEqual(try decode(String(decoding: report.json, as: UTF8.self)).get(), .worker(report))
        }
    }

    func testALogLineMayBeAPlainString() throws {
        let command = try decode(#"{"type":"log","job":"j-a","attempt":1,"lines":["hello"]}"#).get()
        XCTAssertEqual(command, .worker(.log(job: JobID("j-a"), attempt: 1, lines: [LogLine(stream: .stdout, text: "hello")], skipped: 0)))
    }

    func testJobMessagesNeedAJobAndAnAttempt() {
        XCTAssertEqual(refusal(#"{"type":"progress","attempt":1,"completed":1,"total":2}"#)?.message, "job: required, a job id")
        XCTAssertTrue(refusal(#"{"type":"result","job":"j-a"}"#)?.message.hasPrefix("attempt:") == true)
        XCTAssertTrue(
            refusal(#"{"type":"progress","job":"j-a","attempt":1,"completed":-1,"total":2}"#)?.message.hasPrefix("completed:") == true)
        XCTAssertTrue(
            refusal(#"{"type":"log","job":"j-a","attempt":1,"lines":[{"stream":"stdout"}]}"#)?.message.hasPrefix("lines:") == true)
    }

    func testDirectivesAreTheDocumentedMessages() throws {
        var record = JobRecord(id: JobID("j-a"), kind: JobKind("encode"), params: ["n": 3], createdAt: 1)
        record = try XCTUnwrap(JobRecord(json: record.json))
        let assign = try JSONParser.parse(XCTUnwrap(WorkerDirective.assign(record, attempt: 2, lease: 30).json), maxDepth: 16)
        XCTAssertEqual(assign["type"], "assign")
        XCTAssertEqual(assign["attempt"], 2)
        XCTAssertEqual(assign["lease"], 30)
        XCTAssertEqual(assign["job"]?["id"], "j-a")
        XCTAssertEqual(assign["job"]?["params"], ["n": 3])
        let lost = try JSONParser.parse(
            XCTUnwrap(WorkerDirective.error(EngineError(.leaseLost, "not yours"), job: JobID("j-a"), attempt: 1).json), maxDepth: 16)
        XCTAssertEqual(lost["code"], "lease_lost")
        XCTAssertEqual(lost["job"], "j-a")
        XCTAssertNil(WorkerDirective.drop(reason: "gone").json, "a drop is a close, not a message")
    }
}
