import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// `JobTable` alone: creation order, request ids, and the bound on finished jobs and their results.
final class JobTableTests: XCTestCase {
    private func record(_ id: String, _ state: JobState, after: [String] = []) -> JobRecord {
        JobRecord(id: JobID(id), kind: .search, params: [:], after: after.map(JobID.init), state: state, createdAt: 1)
    }

    func testTheOldestFinishedJobsLeaveButOneAnUnfinishedJobWaitsForStays() {
        var table = JobTable(requestIdsKept: 10)
        for (id, state) in [("a", JobState.succeeded), ("b", .failed), ("c", .succeeded), ("d", .succeeded)] {
            table.insert(record(id, state))
        }
        table.insert(record("e", .waiting, after: ["a"]))
        let leaving = table.forgetOld(retainedFinished: 1, keptResultBytes: 1 << 20)
        XCTAssertEqual(leaving.map(\.id.rawValue), ["b", "c"], "oldest first; a stays while e waits for it")
        XCTAssertEqual(table.order.map(\.rawValue), ["a", "d", "e"])
        XCTAssertNil(table[JobID("b")])
    }

    func testResultsOverTheBoundAreDroppedOldestFirstAndTheNewestHolderKeepsItsOwn() {
        var table = JobTable(requestIdsKept: 10)
        for id in ["a", "b", "c"] {
            table.insert(record(id, .succeeded))
            table.results.append([JSONValue.string("0123456789")], for: JobID(id))
        }
        let leaving = table.forgetOld(retainedFinished: 10, keptResultBytes: 1)
        XCTAssertEqual(leaving, [], "jobs stay")
        XCTAssertEqual(["a", "b", "c"].map { table.results.wasDropped(JobID($0)) }, [true, true, false])
        XCTAssertEqual(table.results.count(of: JobID("c")), 1)
        XCTAssertEqual(table.results.totalBytes, table.results.bytes(of: JobID("c")))
    }

    func testRequestIdsAreRememberedUpToTheirBound() {
        var table = JobTable(requestIdsKept: 2)
        for (index, id) in ["a", "b", "c"].enumerated() {
            table.insert(record(id, .running))
            table.remember(requestId: "r\(index)", for: JobID(id))
        }
        XCTAssertNil(table.job(forRequest: "r0"), "the oldest is forgotten")
        XCTAssertEqual(table.job(forRequest: "r2")?.id, JobID("c"))
        table[JobID("zz")] = record("zz", .running)
        XCTAssertFalse(table.contains(JobID("zz")), "the subscript updates held jobs only")
    }
}
