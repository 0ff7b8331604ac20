import HeraldEngine
import HeraldTestSupport
import XCTest

/// Malformed events are refused with an error that names the field, never a crash.
final class WireDecoderErrorTests: XCTestCase {
    private func refusal(_ text: String) -> EngineError? {
        do {
            let decoded = try WireDecoder.event(Array(text.utf8))
            XCTFail("decoded \(decoded) from \(text)")
            return nil
        } catch {
            return error
        }
    }

    /// Replaces `key` (a path like `job.progress.total`) in a valid event's object, or removes it.
    private func edited(_ event: EngineEvent, _ path: String, _ value: JSONValue?) throws -> String {
        func replace(_ value: JSONValue, _ keys: ArraySlice<String>, _ new: JSONValue?) throws -> JSONValue {
            var object = try XCTUnwrap(value.objectValue)
            let key = keys.first!
            if keys.count == 1 { object[key] = new } else { object[key] = try replace(XCTUnwrap(object[key]), keys.dropFirst(), new) }
            return .object(object)
        }
        let original = try JSONParser.parse(WireEncoder.encode(event: event, seq: 1, ts: 2))
        return JSONWriter.string(try replace(original, ArraySlice(path.split(separator: ".").map(String.init)), value))
    }

    private static let record = JobRecord(id: JobID("j-x"), kind: .sort, params: [:], createdAt: 5)
    private static let events: [String: EngineEvent] = [
        "job": .job(record),
        "progress": .progress(job: JobID("j-x"), JobProgress(completed: 1, total: 2)),
        "results": .results(job: JobID("j-x"), items: [1]),
        "news": .news(revision: 1, items: [NewsItem(id: "n1-1", time: 3, headline: "h")]),
        "log": .log(job: JobID("j-x"), lines: [LogLine(stream: .stdout, text: "t")], skipped: 2, first: 7),
        "workers": .workers([WorkerInfo(name: "w", kinds: ["k"], slots: 1, busy: 0, draining: false)]),
    ]

    func testNotJSONOrNotAnObject() {
        for text in ["", "{", #"{"type":"job""#, "nul", "[]", "\"job\"", "42", #"{"type":"job"} x"#] {
            let error = refusal(text)
            XCTAssertNotNil(error, text)
            XCTAssertTrue([.badJSON, .badRequest].contains(error?.code), text)
        }
        XCTAssertEqual(refusal("[]")?.message, "an event is a JSON object")
        XCTAssertEqual(refusal("{")?.code, .badJSON)
    }

    func testTypeSeqAndTs() {
        XCTAssertEqual(refusal(#"{"seq":1,"ts":2}"#)?.message, "type: required, a string")
        XCTAssertEqual(refusal(#"{"type":5,"seq":1,"ts":2}"#)?.message, "type: must be a string")
        let unknown = refusal(#"{"type":"snapshot","seq":1,"ts":2}"#)
        XCTAssertEqual(unknown?.code, .badRequest)
        XCTAssertEqual(unknown?.message, #"type: "snapshot" is not an event type; known: job, progress, results, news, log, workers"#)
        XCTAssertEqual(refusal(#"{"type":"workers","ts":2,"workers":[]}"#)?.message, "seq: required, an integer")
        XCTAssertEqual(refusal(#"{"type":"workers","seq":"1","ts":2,"workers":[]}"#)?.message, "seq: must be an integer")
        XCTAssertEqual(refusal(#"{"type":"workers","seq":1,"ts":2.5,"workers":[]}"#)?.message, "ts: must be an integer")
        XCTAssertEqual(refusal(#"{"type":"workers","seq":1,"ts":null,"workers":[]}"#)?.message, "ts: must be an integer")
    }

    /// Each case: the event, the field changed (nil: removed), and the start of the error's message.
    func testMissingAndMistypedFieldsAreNamed() throws {
        let cases: [(String, String, JSONValue?, String)] = [
            ("job", "job", nil, "job: required"),
            ("job", "job", "j-x", "job: must be a JSON object"),
            ("job", "job.id", "../etc", "job.id: must be a job id"),
            ("job", "job.kind", "", "job.kind: must be a kind name"),
            ("job", "job.state", "paused", "job.state: must be a job state"),
            ("job", "job.params", nil, "job.params: required, an object"),
            ("job", "job.params", [], "job.params: must be an object"),
            ("job", "job.createdAt", "yesterday", "job.createdAt: must be an integer"),
            ("job", "job.progress", nil, "job.progress: required"),
            ("job", "job.progress.total", "x", "job.progress.total: must be an integer"),
            ("job", "job.progress.fraction", nil, "job.progress.fraction: required, a number"),
            ("job", "job.progress.rate", "fast", "job.progress.rate: must be a number or null"),
            ("job", "job.progress.message", 5, "job.progress.message: must be a string or null"),
            ("job", "job.after", [5], "job.after: must be an array of job ids"),
            ("job", "job.requestId", 1, "job.requestId: must be a string or null"),
            ("job", "job.attempt", "2", "job.attempt: must be an integer or null"),
            ("job", "job.exit", [], "job.exit: must be an object or null"),
            ("job", "job.summary", "done", "job.summary: must be an object or null"),
            ("job", "job.worker", false, "job.worker: must be a string or null"),
            ("job", "job.startedAt", 1.5, "job.startedAt: must be an integer or null"),
            ("progress", "job", nil, "job: required, a job id"),
            ("progress", "job", "j x", "job: must be a job id"),
            ("progress", "completed", nil, "completed: required, an integer"),
            ("progress", "fraction", "1", "fraction: must be a number"),
            ("progress", "eta", [], "eta: must be a number or null"),
            ("results", "items", nil, "items: required, an array"),
            ("results", "items", [:], "items: must be an array"),
            ("news", "revision", nil, "revision: required, an integer"),
            ("news", "items", ["x"], "items[0]: must be a JSON object"),
            ("news", "items", [["id": "a", "time": 1]], "items[0].headline: required, a string"),
            ("log", "lines", [["stream": "stdin", "text": "t"]], #"lines[0].stream: must be "stdout" or "stderr""#),
            ("log", "lines", ["text"], "lines[0]: must be a JSON object"),
            ("log", "skipped", -1, "skipped: must be an integer of 0 or more"),
            ("log", "skipped", "3", "skipped: must be an integer of 0 or more"),
            ("workers", "workers", nil, "workers: required, an array"),
            (
                "workers", "workers", [["name": "w", "kinds": ["k", 5], "slots": 1, "busy": 0, "draining": false]],
                "workers[0].kinds[1]: must be a string"
            ),
            (
                "workers", "workers", [["name": "w", "kinds": [], "slots": 1, "busy": 0, "draining": "yes"]],
                "workers[0].draining: must be true or false"
            ),
            (
                "workers", "workers", [["name": "w", "kinds": [], "slots": 1.5, "busy": 0, "draining": true]],
                "workers[0].slots: must be an integer"
            ),
            ("workers", "workers", [["kinds": [], "slots": 1, "busy": 0, "draining": true]], "workers[0].name: required, a string"),
        ]
        for (type, path, value, expected) in cases {
            let text = try edited(try XCTUnwrap(Self.events[type]), path, value)
            let error = refusal(text)
            XCTAssertEqual(error?.code, .badRequest, text)
            XCTAssertTrue(error?.message.hasPrefix(expected) == true, "\(text): \(error?.message ?? "no error"), expected \(expected)")
        }
    }

    func testNestingBeyondTheLimitIsRefused() {
        let deep = String(repeating: "[", count: WireDecoder.maxDepth) + String(repeating: "]", count: WireDecoder.maxDepth)
        XCTAssertEqual(refusal(#"{"type":"results","seq":1,"ts":2,"job":"j-x","items":"# + deep + "}")?.code, .badJSON)
        let fits = String(repeating: "[", count: WireDecoder.maxDepth - 1) + String(repeating: "]", count: WireDecoder.maxDepth - 1)
        XCTAssertNoThrow(try WireDecoder.event(Array((#"{"type":"results","seq":1,"ts":2,"job":"j-x","items":"# + fits + "}").utf8)))
    }

    /// A history line is read by the same decoder: a job with a mistyped field is not a job.
    func testHistoryReadsNothingTheWireWouldRefuse() throws {
        let good = try XCTUnwrap(Self.record.json.objectValue)
        var mistyped = good
        mistyped["error"] = 5
        XCTAssertNil(JobRecord(json: .object(mistyped)))
        XCTAssertThrowsError(try JobRecord(decoding: .object(mistyped))) { error in
            XCTAssertEqual((error as? EngineError)?.message, "job.error: must be a string or null")
        }
        var older = good
        older["progress"] = ["completed": 1, "total": 2, "fraction": 0.5, "message": nil]
        XCTAssertEqual(JobRecord(json: .object(older))?.progress, JobProgress(completed: 1, total: 2), "rate and ETA may be absent")
    }
}
