import HeraldEngine
import HeraldTestSupport
import XCTest

final class JobRecordTests: XCTestCase {
    func testJSONRoundTripWithEveryField() throws {
        let record = JobRecord(
            id: JobID("j-abc123"), kind: .search, params: ["query": "needle", "caseSensitive": false],
            after: [JobID("j-first"), JobID("j-second")], requestId: "r1", state: .succeeded,
            progress: JobProgress(completed: 10, total: 40, message: "scanning"), createdAt: 1_796_000_000_000,
            startedAt: 1_796_000_000_010, finishedAt: 1_796_000_000_900, error: nil, summary: ["matches": 3])
        let text = JSONWriter.string(record.json)
        let decoded = try XCTUnwrap(JobRecord(json: try JSONParser.parse(text)))
        XCTAssertEqual(decoded, record)
        XCTAssertEqual(record.json["progress"]?["fraction"], .double(0.25))
    }

    func testOptionalFieldsAreLeftOut() throws {
        let record = JobRecord(id: JobID("j-x"), kind: .sort, params: [:], createdAt: 5)
        let object = try XCTUnwrap(record.json.objectValue)
        XCTAssertEqual(object.keys, ["id", "kind", "state", "params", "progress", "createdAt"])
        XCTAssertEqual(object["progress"]?.objectValue?.keys, ["completed", "total", "fraction", "message", "rate", "eta"])
        XCTAssertEqual(object["progress"]?["message"], .null)
        XCTAssertEqual(object["progress"]?["rate"], .null, "null until known, as in the progress event")
        XCTAssertEqual(object["progress"]?["eta"], .null, "null until known, as in the progress event")
        XCTAssertEqual(JobRecord(json: record.json), record)
    }

    func testRateAndETAAreReadBackSoAnArchivedJobIsTheSameObject() throws {
        let record = JobRecord(
            id: JobID("j-x"), kind: .sort, params: [:], state: .running,
            progress: JobProgress(completed: 1, total: 2, rate: 1.5, eta: 0.5), createdAt: 5)
        XCTAssertEqual(record.json["progress"]?["rate"], .double(1.5))
        XCTAssertEqual(record.json["progress"]?["eta"], .double(0.5))
        let decoded = try XCTUnwrap(JobRecord(json: try JSONParser.parse(JSONWriter.encode(record.json))))
        XCTAssertEqual(decoded.progress, JobProgress(completed: 1, total: 2, rate: 1.5, eta: 0.5))
    }

    func testUnreadableJobsAreRejected() throws {
        let good = try XCTUnwrap(JobRecord(id: JobID("j-x"), kind: .fetch, params: [:], createdAt: 5).json.objectValue)
        // Kinds are open (a jobs file adds its own), but a kind must be a name.
        var badKind = good; badKind["kind"] = ""
        var badState = good; badState["state"] = "paused"
        var badID = good; badID["id"] = "../../etc"
        var emptyID = good; emptyID["id"] = ""
        var noParams = good; noParams["params"] = nil
        var noCreated = good; noCreated["createdAt"] = nil
        var textCreated = good; textCreated["createdAt"] = "yesterday"
        for (name, object) in [
            ("kind", badKind), ("state", badState), ("id", badID), ("empty id", emptyID), ("params", noParams),
            ("createdAt", noCreated), ("createdAt text", textCreated),
        ] {
            XCTAssertNil(JobRecord(json: .object(object)), name)
        }
        XCTAssertNil(JobRecord(json: .array([])))
        XCTAssertNotNil(JobRecord(json: .object(good)))
        var ownKind = good
        ownKind["kind"] = "backup"
        XCTAssertEqual(JobRecord(json: .object(ownKind))?.kind, "backup", "a job of a jobs-file kind reads back")
    }

    func testJobIDs() {
        let ids = (0..<200).map { _ in JobID.random() }
        XCTAssertEqual(Set(ids).count, 200)
        for id in ids {
            XCTAssertTrue(id.rawValue.hasPrefix("j-"))
            XCTAssertEqual(id.rawValue.count, 14)
            XCTAssertTrue(JobID.isWellFormed(id.rawValue))
        }
        XCTAssertFalse(JobID.isWellFormed(""))
        XCTAssertFalse(JobID.isWellFormed("j-a b"))
        XCTAssertFalse(JobID.isWellFormed("j/../x"))
        XCTAssertFalse(JobID.isWellFormed(String(repeating: "a", count: 65)))
        XCTAssertTrue(JobID.isWellFormed(String(repeating: "a", count: 64)))
    }
}
