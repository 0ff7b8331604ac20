import HeraldEngine
import HeraldTestSupport
import XCTest

/// Every command decodes, and every malformed one is refused with a code that names the problem.
final class CommandDecoderTests: XCTestCase {
    private func decode(_ text: String) -> Result<Command, CommandDecoder.Refusal> { CommandDecoder.decode(Array(text.utf8)) }

    private func code(_ text: String) -> ErrorCode? {
        if case .failure(let refusal) = decode(text) { return refusal.error.code }
        return nil
    }

    func testValidCommands() {
        XCTAssertEqual(try decode(#"{"type":"ping"}"#).get(), .ping)
        XCTAssertEqual(
            try decode(#"{"type":"start","kind":"search","params":{"query":"a"},"after":["j-1"],"requestId":"r"}"#).get(),
            .start(StartRequest(kind: "search", params: ["query": "a"], after: ["j-1"], requestId: "r")))
        XCTAssertEqual(try decode(#"{"type":"cancel","job":"j-abc"}"#).get(), .cancel(job: "j-abc", requestId: nil))
        XCTAssertEqual(try decode(#"{"type":"resume","epoch":"e","since":7}"#).get(), .resume(epoch: "e", since: 7))
        XCTAssertEqual(try decode(#"{"type":"page","job":"j-a"}"#).get(), .page(job: "j-a", offset: 0, limit: 100, requestId: nil))
        XCTAssertEqual(try decode(#"{"type":"auth","token":"t"}"#).get(), .auth(token: "t", requestId: nil))
    }

    func testRefusals() {
        XCTAssertEqual(code("nope"), .badJSON)
        XCTAssertEqual(code("[1]"), .badRequest)
        XCTAssertEqual(code(#"{"kind":"search"}"#), .badRequest)
        XCTAssertEqual(code(#"{"type":3}"#), .badRequest)
        XCTAssertEqual(code(#"{"type":"dance"}"#), .unknownType)
        XCTAssertEqual(code(#"{"type":"start"}"#), .badRequest)
        XCTAssertEqual(code(#"{"type":"start","kind":"search","params":[]}"#), .badRequest)
        XCTAssertEqual(code(#"{"type":"start","kind":"search","after":["../etc"]}"#), .badRequest)
        XCTAssertEqual(code(#"{"type":"cancel"}"#), .badRequest)
        XCTAssertEqual(code(#"{"type":"resume","epoch":"e","since":-1}"#), .badRequest)
        XCTAssertEqual(code(#"{"type":"page","job":"j-a","limit":0}"#), .badRequest)
        XCTAssertEqual(code(#"{"type":"page","job":"j-a","offset":1.5}"#), .badRequest)
        XCTAssertEqual(code(#"{"type":"ping","requestId":5}"#), .badRequest)
        XCTAssertEqual(code(String(repeating: "[", count: 40) + String(repeating: "]", count: 40)), .badJSON)
    }

    func testScheduleCommands() throws {
        XCTAssertEqual(try decode(#"{"type":"schedules"}"#).get(), .schedules(requestId: nil))
        XCTAssertEqual(try decode(#"{"type":"schedules","requestId":"r5"}"#).get(), .schedules(requestId: "r5"))
        for action in ScheduleAction.allCases {
            XCTAssertEqual(
                try decode(#"{"type":"schedule","name":"nightly-backup","action":"\#(action.rawValue)","requestId":"r6"}"#).get(),
                .schedule(name: "nightly-backup", action: action, requestId: "r6"))
        }
        // A name no jobs file could declare is still the engine's to refuse: its not_found names the schedules there are.
        XCTAssertEqual(
            try decode(#"{"type":"schedule","name":"Nightly Backup","action":"run"}"#).get(),
            .schedule(name: "Nightly Backup", action: .run, requestId: nil))
        XCTAssertEqual(try decode(#"{"type":"schedule","name":"x","action":"run"}"#).get().typeName, "schedule")
        XCTAssertEqual(try decode(#"{"type":"schedules"}"#).get().typeName, "schedules")
    }

    func testScheduleRefusalsNameTheFieldAndTheChoices() {
        let cases: [(String, String)] = [
            (#"{"type":"schedule","action":"pause","requestId":"r7"}"#, "name: required, a schedule's name"),
            (#"{"type":"schedule","name":"","action":"pause"}"#, "name: must be a schedule's name, a string of 1 to 64 bytes"),
            (#"{"type":"schedule","name":7,"action":"pause"}"#, "name: must be a schedule's name, a string of 1 to 64 bytes"),
            (
                #"{"type":"schedule","name":"\#(String(repeating: "a", count: 65))","action":"pause"}"#,
                "name: must be a schedule's name, a string of 1 to 64 bytes"
            ),
            (#"{"type":"schedule","name":"nightly"}"#, "action: required, one of pause, resume, run"),
            (#"{"type":"schedule","name":"nightly","action":"explode"}"#, "action: must be one of pause, resume, run"),
            (#"{"type":"schedule","name":"nightly","action":["run"]}"#, "action: must be one of pause, resume, run"),
            (#"{"type":"schedule","name":"nightly","action":"Run"}"#, "action: must be one of pause, resume, run"),
        ]
        for (text, message) in cases {
            guard case .failure(let refusal) = decode(text) else {
                XCTFail("accepted: \(text)")
                continue
            }
            XCTAssertEqual(refusal.error.code, .badRequest, text)
            XCTAssertEqual(refusal.error.message, message, text)
        }
        guard case .failure(let refusal) = decode(#"{"type":"schedule","requestId":"r7"}"#) else { return XCTFail("accepted") }
        XCTAssertEqual(refusal.requestId, "r7", "the refusal answers the request")
        XCTAssertEqual(code(#"{"type":"schedules","requestId":3}"#), .badRequest)
        guard case .failure(let unknown) = decode(#"{"type":"schedual"}"#) else { return XCTFail("accepted") }
        XCTAssertTrue(unknown.error.message.contains("schedules, schedule"), unknown.error.message)
    }

    func testOverlongRequestIdIsRefusedAndNotEchoed() throws {
        let long = String(repeating: "r", count: 129)
        guard case .failure(let refusal) = decode(#"{"type":"ping","requestId":"\#(long)"}"#) else { return XCTFail("accepted") }
        XCTAssertEqual(refusal.error.code, .badRequest)
        XCTAssertNil(refusal.requestId)
        XCTAssertEqual(try decode(#"{"type":"ping","requestId":"\#(String(repeating: "r", count: 128))"}"#).get(), .ping)
    }

    func testRefusalCarriesTheRequestIdAndNamesTheField() throws {
        guard case .failure(let refusal) = decode(#"{"type":"start","requestId":"r9"}"#) else { return XCTFail("accepted") }
        XCTAssertEqual(refusal.requestId, "r9")
        XCTAssertTrue(refusal.error.message.hasPrefix("kind:"), refusal.error.message)
    }

    func testArbitraryBytesNeverCrash() {
        var generator = SeededGenerator(seed: 99)
        let seeds = [#"{"type":"start","kind":"search","params":{"query":"x"}}"#, #"{"type":"page","job":"j-a","offset":5}"#]
        for _ in 0..<5_000 {
            var bytes = Array(seeds[Int(generator.next() % 2)].utf8)
            for _ in 0..<Int(generator.next() % 4 + 1) {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            _ = CommandDecoder.decode(bytes)
        }
    }
}
