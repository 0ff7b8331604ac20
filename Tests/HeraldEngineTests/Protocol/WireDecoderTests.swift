@testable import HeraldEngine
import HeraldTestSupport
import XCTest

final class WireDecoderTests: XCTestCase {
    /// Encodes, decodes, checks the value and the bytes came back, and returns the bytes.
    @discardableResult
    private func assertRoundTrip(_ event: EngineEvent, seq: Int64 = 7, ts: Int64 = 1_796_000_000_000_001, line: UInt = #line) throws
        -> String
    {
        let bytes = WireEncoder.encode(event: event, seq: seq, ts: ts)
        let decoded = try WireDecoder.event(bytes)
        XCTAssertEqual(decoded.seq, seq, line: line)
        XCTAssertEqual(decoded.ts, ts, line: line)
        XCTAssertEqual(decoded.event, event, line: line)
        XCTAssertEqual(
            String(decoding: WireEncoder.encode(event: decoded.event, seq: decoded.seq, ts: decoded.ts), as: UTF8.self),
            String(decoding: bytes, as: UTF8.self), line: line)
        return String(decoding: bytes, as: UTF8.self)
    }

    func testJobWithEveryField() throws {
        var record = JobRecord(
            id: JobID("j-abc123"), kind: "backup \"nightly\"", params: ["path": "/tmp/é 😀\n", "n": 3, "ratio": 2.0, "deep": [[[nil]]]],
            after: [JobID("j-first"), JobID("J_2")], requestId: "", state: .failed,
            progress: JobProgress(completed: -5, total: Int64.max, message: "\u{0}\u{7F}\"", rate: 1e300, eta: 0.1),
            createdAt: Int64.min, startedAt: 0, finishedAt: Int64.max, error: "exit 3:\n\tstack", summary: [:])
        record.exit = ["signal": "KILL"]
        record.attempt = 3
        record.worker = "box-1 (ü)"
        record.node = "n-2.eu"
        let text = try assertRoundTrip(.job(record))
        XCTAssertTrue(text.contains(#""node":"n-2.eu""#), text)
        XCTAssertTrue(text.contains(#""ratio":2.0"#), "a double in params stays a double: \(text)")
    }

    func testJobWithNoOptionalFieldsInEveryState() throws {
        for state in JobState.allCases {
            try assertRoundTrip(.job(JobRecord(id: JobID("j-x"), kind: .sort, params: [:], state: state, createdAt: 0)))
        }
    }

    func testProgressWithAndWithoutMessageRateAndETA() throws {
        let values = [
            JobProgress(),
            JobProgress(completed: 1, total: 3, message: "", rate: 0, eta: -0.0),
            JobProgress(completed: 40, total: 40, message: "saving", rate: 20, eta: 0),
            JobProgress(completed: 7, total: 0, message: nil, rate: 1492742.0641726714, eta: nil),
            JobProgress(completed: Int64.max, total: 1, message: "日本語", rate: nil, eta: 1e-7),
            JobProgress(completed: 1, total: 2, rate: .nan, eta: .infinity),
        ]
        for progress in values {
            try assertRoundTrip(.progress(job: JobID("j-1"), progress))
            try assertRoundTrip(.job(JobRecord(id: JobID("j-1"), kind: .search, params: [:], progress: progress, createdAt: 1)))
        }
    }

    func testResultsNewsLogAndWorkers() throws {
        try assertRoundTrip(.results(job: JobID("j-1"), items: []))
        try assertRoundTrip(
            .results(job: JobID("j-1"), items: [["file": "a\\b.txt", "line": 2, "text": "\u{2028}"], 1.5, 3.0, -0.0, nil, "x", [], [:]]))
        try assertRoundTrip(.news(revision: 0, items: []))
        try assertRoundTrip(
            .news(
                revision: Int64.max,
                items: [NewsItem(id: "", time: -1, headline: "\"quoted\""), NewsItem(id: "n1-1", time: 0, headline: "")]))
        try assertRoundTrip(.log(job: JobID("j-1"), lines: [], skipped: 0, first: 0))
        try assertRoundTrip(
            .log(
                job: JobID("j-1"), lines: [LogLine(stream: .stderr, text: "\r"), LogLine(stream: .stdout, text: "")], skipped: Int.max,
                first: 12_345))
        try assertRoundTrip(.workers([]))
        try assertRoundTrip(
            .workers([
                WorkerInfo(name: "w", kinds: [], slots: 0, busy: -1, draining: true),
                WorkerInfo(name: "", kinds: ["encode", ""], slots: Int.max, busy: Int.min, draining: false),
            ]))
    }

    /// The documented transcript (docs/protocol.md) is already in the canonical form.
    func testDocumentedEventsDecodeAndEncodeAgainUnchanged() throws {
        let lines = [
            #"{"type":"job","seq":2,"ts":1795974200004637,"job":{"id":"j-yhynw67bh0f7","kind":"search","state":"running","params":{"query":"needle","caseSensitive":false},"progress":{"completed":0,"total":0,"fraction":0,"message":null,"rate":null,"eta":null},"createdAt":1795974200004,"requestId":"r1","startedAt":1795974200004}}"#,
            #"{"type":"progress","seq":3,"ts":1795974200007831,"job":"j-yhynw67bh0f7","completed":93,"total":93,"fraction":1,"message":"scanning","rate":null,"eta":null}"#,
            #"{"type":"results","seq":4,"ts":1795974200007910,"job":"j-yhynw67bh0f7","items":[{"file":"notes1.txt","line":2,"text":"The needle is here"}]}"#,
            #"{"type":"news","seq":9,"ts":1,"revision":2,"items":[{"id":"n2-1","time":1795974200007,"headline":"Hello"}]}"#,
            #"{"type":"log","seq":10,"ts":2,"job":"j-a","first":120,"lines":[{"stream":"stderr","text":"oops"}],"skipped":4}"#,
            #"{"type":"workers","seq":11,"ts":3,"workers":[{"name":"w1","kinds":["encode"],"slots":2,"busy":1,"draining":false}]}"#,
        ]
        for line in lines {
            let decoded = try WireDecoder.event(Array(line.utf8))
            XCTAssertEqual(
                String(decoding: WireEncoder.encode(event: decoded.event, seq: decoded.seq, ts: decoded.ts), as: UTF8.self), line)
        }
    }

    /// What the encoder would not write byte for byte still means an event, encoded canonically.
    func testOtherSpellingsDecodeToTheCanonicalEvent() throws {
        let text =
            #" { "eta" : 2 , "job":"j-1", "completed": 5.0, "total":10, "fraction": 0.9, "message":"m", "type":"progress","ts":2,"seq":1e0, "extra":{} } "#
        let decoded = try WireDecoder.event(Array(text.utf8))
        XCTAssertEqual(decoded.seq, 1)
        XCTAssertEqual(decoded.event, .progress(job: JobID("j-1"), JobProgress(completed: 5, total: 10, message: "m", eta: 2)))
        XCTAssertEqual(
            String(decoding: WireEncoder.encode(event: decoded.event, seq: decoded.seq, ts: decoded.ts), as: UTF8.self),
            #"{"type":"progress","seq":1,"ts":2,"job":"j-1","completed":5,"total":10,"fraction":0.5,"message":"m","rate":null,"eta":2}"#)
    }

    func testAParsedValueDecodesLikeItsBytes() throws {
        let bytes = WireEncoder.encode(
            event: .workers([WorkerInfo(name: "w", kinds: ["k"], slots: 1, busy: 0, draining: false)]), seq: 1, ts: 2)
        let fromValue = try WireDecoder.event(json: JSONParser.parse(bytes))
        let fromBytes = try WireDecoder.event(bytes)
        XCTAssertEqual(fromValue.event, fromBytes.event)
        XCTAssertEqual(fromValue.seq, 1)
    }
}
