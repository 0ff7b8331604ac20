import HeraldEngine
import HeraldTestSupport
import XCTest

/// The history query's parameters and its cursor: pure parsing, no engine.
final class HistoryQueryTests: XCTestCase {
    private func parsed(_ parameters: [String: String]) throws -> HistoryQuery {
        let result = try XCTUnwrap(HistoryQuery.parse(parameters), "\(parameters) asks for a page")
        return try result.get()
    }

    private func refusal(_ parameters: [String: String]) throws -> String {
        let result = try XCTUnwrap(HistoryQuery.parse(parameters), "\(parameters) asks for a page")
        guard case .failure(let error) = result else {
            XCTFail("\(parameters) was accepted")
            return ""
        }
        XCTAssertEqual(error.code, .badRequest)
        return error.message
    }

    func testWithoutItsParametersThereIsNoQuery() {
        XCTAssertNil(HistoryQuery.parse([:]), "plain GET /api/jobs keeps its answer")
        XCTAssertNil(HistoryQuery.parse(["offset": "3", "token": "x"]))
    }

    func testDefaultsAndLists() throws {
        XCTAssertEqual(try parsed(["limit": "7"]), HistoryQuery(limit: 7))
        XCTAssertEqual(try parsed(["state": ""]), HistoryQuery(), "an empty value is the same as leaving it out")
        let query = try parsed(["state": "succeeded,failed", "kind": "sort,backup-nightly", "limit": "500"])
        XCTAssertEqual(query.states, [.succeeded, .failed])
        XCTAssertEqual(query.kinds, [JobKind.sort, JobKind("backup-nightly")])
        XCTAssertNil(query.before)
        XCTAssertEqual(query.limit, 500)
        XCTAssertEqual(try parsed(["kind": "sort"]).limit, 50)
    }

    func testBadValuesSayWhatIsWrong() throws {
        XCTAssertEqual(try refusal(["limit": "0"]), "limit: must be an integer from 1 to 500")
        XCTAssertEqual(try refusal(["limit": "501"]), "limit: must be an integer from 1 to 500")
        XCTAssertEqual(try refusal(["limit": "ten"]), "limit: must be an integer from 1 to 500")
        XCTAssertEqual(
            try refusal(["state": "succeeded,done"]),
            "state: \"done\" is not a job state; use one or more of queued, waiting, running, succeeded, failed, cancelled, interrupted, separated by commas"
        )
        XCTAssertTrue(try refusal(["state": "succeeded,"]).hasPrefix("state: \"\" is not a job state"))
        XCTAssertTrue(try refusal(["kind": "sort,,fetch"]).hasPrefix("kind: \"\" is not a kind name"))
        XCTAssertTrue(try refusal(["kind": "a b"]).hasPrefix("kind: \"a b\" is not a kind name"))
        XCTAssertTrue(try refusal(["kind": String(repeating: "k", count: 65)]).hasPrefix("kind: "))
        for cursor in ["x", "12", ".j-a", "12.", "-5.j-a", "12.j a", "1e3.j-a", "99999999999999999999.j-a"] {
            XCTAssertTrue(try refusal(["before": cursor]).hasPrefix("before: \"\(cursor)\" is not a cursor"), cursor)
        }
    }

    func testCursorRoundTripAndOrder() throws {
        let cursor = HistoryCursor(createdAt: 1_795_974_203_541, id: JobID("j-scbt6a851ygz"))
        XCTAssertEqual(cursor.text, "1795974203541.j-scbt6a851ygz")
        XCTAssertEqual(HistoryCursor(text: cursor.text), cursor)
        XCTAssertEqual(try parsed(["before": cursor.text]).before, cursor)
        XCTAssertLessThan(HistoryCursor(createdAt: 1, id: JobID("j-z")), HistoryCursor(createdAt: 2, id: JobID("j-a")), "time first")
        XCTAssertLessThan(HistoryCursor(createdAt: 2, id: JobID("j-a")), HistoryCursor(createdAt: 2, id: JobID("j-b")), "then the id")
    }

    func testAdmitsByStateKindAndCursor() throws {
        let record = JobRecord(id: JobID("j-m"), kind: .sort, params: [:], state: .failed, createdAt: 10, error: "x")
        XCTAssertTrue(HistoryQuery().admits(record))
        XCTAssertTrue(HistoryQuery(states: [.failed, .cancelled]).admits(record))
        XCTAssertFalse(HistoryQuery(states: [.succeeded]).admits(record))
        XCTAssertFalse(HistoryQuery(kinds: [.fetch]).admits(record))
        XCTAssertTrue(HistoryQuery(before: HistoryCursor(createdAt: 10, id: JobID("j-n"))).admits(record))
        XCTAssertFalse(HistoryQuery(before: HistoryCursor(record)).admits(record), "strictly older than the cursor")
        XCTAssertFalse(HistoryQuery(before: HistoryCursor(createdAt: 9, id: JobID("j-z"))).admits(record))
    }
}
