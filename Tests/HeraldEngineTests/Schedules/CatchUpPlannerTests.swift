import XCTest

@testable import HeraldEngine

/// Which missed occurrences a schedule fires: none, the latest, or the latest N, oldest first.
final class CatchUpPlannerTests: XCTestCase {
    private let hourly = Schedule(rule: .every(try! EveryInterval("1h")))  // a literal that parses

    private func at(_ text: String) -> Int64 { ScheduleTesting.instant(text) }

    private func plan(_ schedule: Schedule, last: String?, now: String, _ policy: CatchUpPolicy, limit: Int = 10) -> CatchUpPlan {
        CatchUpPlanner.plan(schedule: schedule, lastFired: last.map(at), now: at(now), policy: policy, limit: limit)
    }

    func testNothingMissedNothingFired() {
        for policy in CatchUpPolicy.allCases {
            let plan = plan(hourly, last: "2026-05-05T10:00:00Z", now: "2026-05-05T10:59:59Z", policy)
            XCTAssertEqual(plan, CatchUpPlan(fire: [], leftOut: false, next: at("2026-05-05T11:00:00Z")), "\(policy)")
        }
    }

    func testANewScheduleHasMissedNothing() {
        let plan = plan(hourly, last: nil, now: "2026-05-05T10:30:00Z", .all)
        XCTAssertEqual(plan, CatchUpPlan(fire: [], leftOut: false, next: at("2026-05-05T11:00:00Z")))
    }

    func testNoneFiresNothingAndSaysSomethingWasMissed() {
        let plan = plan(hourly, last: "2026-05-05T10:00:00Z", now: "2026-05-05T13:30:00Z", .none)
        XCTAssertEqual(plan, CatchUpPlan(fire: [], leftOut: true, next: at("2026-05-05T14:00:00Z")))
    }

    func testOneFiresTheLatestMissedOccurrence() {
        let plan = plan(hourly, last: "2026-05-05T10:00:00Z", now: "2026-05-05T13:30:00Z", .one)
        XCTAssertEqual(plan, CatchUpPlan(fire: [at("2026-05-05T13:00:00Z")], leftOut: true, next: at("2026-05-05T14:00:00Z")))
        let single = self.plan(hourly, last: "2026-05-05T10:00:00Z", now: "2026-05-05T11:00:00Z", .one)
        XCTAssertEqual(single.fire, [at("2026-05-05T11:00:00Z")], "an occurrence exactly at now is due")
        XCTAssertFalse(single.leftOut)
    }

    func testAllFiresEveryMissedOneOldestFirst() {
        let plan = plan(hourly, last: "2026-05-05T10:00:00Z", now: "2026-05-05T13:30:00Z", .all)
        XCTAssertEqual(plan.fire, ["2026-05-05T11:00:00Z", "2026-05-05T12:00:00Z", "2026-05-05T13:00:00Z"].map(at))
        XCTAssertFalse(plan.leftOut)
    }

    func testAllKeepsTheLatestUpToTheLimit() {
        let plan = plan(hourly, last: "2026-05-01T00:00:00Z", now: "2026-05-05T13:30:00Z", .all, limit: 3)
        XCTAssertEqual(plan.fire, ["2026-05-05T11:00:00Z", "2026-05-05T12:00:00Z", "2026-05-05T13:00:00Z"].map(at))
        XCTAssertTrue(plan.leftOut)
    }

    func testALongOutageOfAFrequentScheduleIsQuick() throws {
        let everyMinute = try ScheduleTesting.schedule("* * * * *", "Europe/Berlin")
        let plan = plan(everyMinute, last: "2020-01-01T00:00:00Z", now: "2026-05-05T13:30:30Z", .all, limit: 2)
        XCTAssertEqual(plan.fire, ["2026-05-05T13:29:00Z", "2026-05-05T13:30:00Z"].map(at))
        XCTAssertTrue(plan.leftOut)
    }

    func testASparseScheduleIsFoundFarBack() throws {
        let yearly = try ScheduleTesting.schedule("@yearly", "Europe/Berlin")
        let plan = plan(yearly, last: "2023-06-01T00:00:00Z", now: "2026-05-05T13:30:00Z", .all)
        XCTAssertEqual(plan.fire, ["2024-01-01T00:00:00+01:00", "2025-01-01T00:00:00+01:00", "2026-01-01T00:00:00+01:00"].map(at))
        XCTAssertFalse(plan.leftOut)
        XCTAssertEqual(plan.next, at("2027-01-01T00:00:00+01:00"))
    }

    func testMissedOccurrencesAcrossAClockChangeFollowTheDSTRules() throws {
        // Berlin, 2026-10-25: 02:30 happens twice and is one occurrence.
        let nightly = try ScheduleTesting.schedule("30 2 * * *", "Europe/Berlin")
        let plan = plan(nightly, last: "2026-10-23T02:30:00+02:00", now: "2026-10-26T12:00:00+01:00", .all)
        XCTAssertEqual(plan.fire, ["2026-10-24T02:30:00+02:00", "2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"].map(at))
    }
}
