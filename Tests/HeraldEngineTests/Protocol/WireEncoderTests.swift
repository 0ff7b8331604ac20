import HeraldEngine
import HeraldTestSupport
import XCTest

final class WireEncoderTests: XCTestCase {
    private func decode(_ bytes: [UInt8]) throws -> JSONValue { try JSONParser.parse(bytes) }

    func testProgressEvent() throws {
        let progress = JobProgress(completed: 25, total: 100, message: nil, rate: 12.5, eta: nil)
        let value = try decode(WireEncoder.encode(event: .progress(job: JobID("j-1"), progress), seq: 7, ts: 99))
        XCTAssertEqual(value["type"], "progress")
        XCTAssertEqual(value["seq"], .int(7))
        XCTAssertEqual(value["ts"], .int(99))
        XCTAssertEqual(value["job"], "j-1")
        XCTAssertEqual(value["completed"], .int(25))
        XCTAssertEqual(value["fraction"], .double(0.25))
        XCTAssertEqual(value["message"], .null)
        XCTAssertEqual(value["rate"], .double(12.5))
        XCTAssertEqual(value["eta"], .null)
    }

    /// The job object's `progress` and the `progress` event come from one encoding: the event is
    /// `type`, `seq`, `ts`, `job`, then exactly the job's progress fields, in the same order.
    func testProgressEventCarriesTheJobObjectsProgressFields() throws {
        let values = [
            JobProgress(),
            JobProgress(completed: 25, total: 100, message: "scanning", rate: 12.5, eta: 6),
            JobProgress(completed: 3, total: 0, message: nil, rate: 0, eta: nil),
            JobProgress(completed: 7, total: 9, message: "sorting", rate: nil, eta: 1.5),
        ]
        for progress in values {
            let event = try XCTUnwrap(decode(WireEncoder.encode(event: .progress(job: JobID("j-1"), progress), seq: 7, ts: 99)).objectValue)
            let record = JobRecord(id: JobID("j-1"), kind: .search, params: [:], progress: progress, createdAt: 1)
            let job = try decode(WireEncoder.encode(event: .job(record), seq: 8, ts: 99))
            let fields = try XCTUnwrap(job["job"]?["progress"]?.objectValue)
            XCTAssertEqual(fields.keys, ["completed", "total", "fraction", "message", "rate", "eta"], "\(progress)")
            XCTAssertEqual(event.keys, ["type", "seq", "ts", "job"] + fields.keys, "\(progress)")
            for (key, value) in fields.entries { XCTAssertEqual(event[key], value, "\(key) of \(progress)") }
        }
    }

    func testJobResultsAndNewsEvents() throws {
        let record = JobRecord(id: JobID("j-2"), kind: .fetch, params: [:], createdAt: 1)
        let job = try decode(WireEncoder.encode(event: .job(record), seq: 1, ts: 2))
        XCTAssertEqual(job["type"], "job")
        XCTAssertEqual(job["job"].map(JSONWriter.string), JSONWriter.string(record.json))
        XCTAssertEqual(job["job"].flatMap(JobRecord.init(json:)), record)
        let results = try decode(WireEncoder.encode(event: .results(job: JobID("j-2"), items: [["line": 3]]), seq: 2, ts: 3))
        XCTAssertEqual(results["items"], [["line": 3]])
        var feed = NewsFeed()
        let item = try XCTUnwrap(feed.append(["h"], at: 5).first)
        let news = try decode(WireEncoder.encode(event: .news(revision: 1, items: [item]), seq: 3, ts: 4))
        XCTAssertEqual(news["revision"], .int(1))
        XCTAssertEqual(news["items"], [item.json])
    }

    func testSequencedEventCarriesItsEncoding() throws {
        let event = SequencedEvent(seq: 5, ts: 6, event: .progress(job: JobID("j-3"), JobProgress(completed: 1)))
        XCTAssertEqual(event.json, WireEncoder.encode(event: event.event, seq: 5, ts: 6))
        XCTAssertEqual(event.progressJob, JobID("j-3"))
        XCTAssertNil(SequencedEvent(seq: 1, ts: 1, event: .news(revision: 1, items: [])).progressJob)
    }

    func testSnapshotAndReplies() throws {
        var feed = NewsFeed()
        _ = feed.append(["x"], at: 1)
        let snapshot = Snapshot(epoch: "e1", seq: 42, jobs: [], news: feed, limits: ["workers": 2])
        let value = try decode(WireEncoder.encode(snapshot: snapshot, reason: .resume, extraLimits: ["maxMessageBytes": 65536]))
        XCTAssertEqual(value["type"], "snapshot")
        XCTAssertEqual(value["protocol"], .int(WireEncoder.protocolVersion))
        XCTAssertEqual(value["reason"], "resume")
        XCTAssertEqual(value["epoch"], "e1")
        XCTAssertEqual(value["seq"], .int(42))
        XCTAssertEqual(value["news"], feed.json)
        XCTAssertEqual(value["limits"], ["workers": 2, "maxMessageBytes": 65536])

        let error = try decode(WireEncoder.error(EngineError(.busy, "a search is running"), requestId: "r1"))
        XCTAssertEqual(error, ["type": "error", "requestId": "r1", "code": "busy", "message": "a search is running"])
        let record = JobRecord(id: JobID("j-4"), kind: .sort, params: [:], createdAt: 1)
        XCTAssertEqual(
            try decode(WireEncoder.accepted(requestId: nil, job: record)), ["type": "accepted", "job": "j-4", "state": "queued"])
        let page = try decode(WireEncoder.page(ResultPage(offset: 10, total: 12, values: [1, 2]), job: JobID("j-4"), requestId: "p"))
        XCTAssertEqual(page, ["type": "page", "requestId": "p", "job": "j-4", "offset": 10, "total": 12, "values": [1, 2]])
        XCTAssertEqual(try decode(WireEncoder.pong), ["type": "pong"])
    }
}
