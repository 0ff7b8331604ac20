import XCTest

@testable import HeraldEngine

/// Next fire times in time zones, above all on the days clocks change: a skipped wall time fires
/// once, at the first instant after the gap; a repeated one once, at its first occurrence.
/// Expected instants are written with their offsets, so each says which side of a change it is on.
final class ScheduleTimeZoneTests: XCTestCase {
    private func assertFires(
        _ expression: String, _ zone: String, after: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let fires = try ScheduleTesting.upcoming(expression, zone, after: after, count: expected.count)
        XCTAssertEqual(fires, expected.map(ScheduleTesting.instant), "\(expression) in \(zone)", file: file, line: line)
    }

    func testUTCIsTheDefaultAndPlain() throws {
        let schedule = Schedule(rule: try ScheduleRule(parsing: "*/15 * * * *"))
        XCTAssertEqual(schedule.timeZone, Schedule.utc)
        XCTAssertEqual(
            schedule.next(after: ScheduleTesting.instant("2026-05-05T10:07:30Z")), ScheduleTesting.instant("2026-05-05T10:15:00Z"))
        XCTAssertEqual(
            schedule.next(after: ScheduleTesting.instant("2026-05-05T10:15:00Z")), ScheduleTesting.instant("2026-05-05T10:30:00Z"),
            "strictly after: a fire time itself is not the next one")
        try assertFires("59 23 31 12 *", "UTC", after: "2026-12-31T23:59:00Z", ["2027-12-31T23:59:00Z"])
    }

    func testMillisecondsInMillisecondsOut() throws {
        let schedule = try ScheduleTesting.schedule("0 * * * *")
        let hour = ScheduleTesting.instant("2026-05-05T10:00:00Z")
        XCTAssertEqual(schedule.next(afterMilliseconds: hour * 1000 - 1), hour * 1000)
        XCTAssertEqual(schedule.next(afterMilliseconds: hour * 1000), (hour + 3600) * 1000)
        XCTAssertEqual(schedule.next(afterMilliseconds: hour * 1000 + 999), (hour + 3600) * 1000)
    }

    func testBerlinSpringForwardSkippedTimeFiresOnceAtTheEndOfTheGap() throws {
        // 2026-03-29: 02:00 CET becomes 03:00 CEST.
        try assertFires(
            "30 2 * * *", "Europe/Berlin", after: "2026-03-28T12:00:00+01:00",
            ["2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"])
        try assertFires(
            "*/15 * * * *", "Europe/Berlin", after: "2026-03-29T01:40:00+01:00",
            ["2026-03-29T01:45:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-29T03:15:00+02:00"])
        try assertFires(
            "* 2 * * *", "Europe/Berlin", after: "2026-03-29T01:00:00+01:00",
            ["2026-03-29T03:00:00+02:00", "2026-03-30T02:00:00+02:00"])
        try assertFires(
            "30 2,3 * * *", "Europe/Berlin", after: "2026-03-29T00:00:00+01:00",
            ["2026-03-29T03:00:00+02:00", "2026-03-29T03:30:00+02:00"])
    }

    func testBerlinFallBackRepeatedTimeFiresOnceAtItsFirstOccurrence() throws {
        // 2026-10-25: 03:00 CEST becomes 02:00 CET; 02:00-02:59 happen twice. From inside the
        // second 02:xx, a 02:30 has had its turn already.
        try assertFires(
            "30 2 * * *", "Europe/Berlin", after: "2026-10-25T00:00:00+02:00",
            ["2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"])
        try assertFires(
            "0 * * * *", "Europe/Berlin", after: "2026-10-25T01:30:00+02:00",
            ["2026-10-25T02:00:00+02:00", "2026-10-25T03:00:00+01:00", "2026-10-25T04:00:00+01:00"])
        try assertFires(
            "30 2 * * *", "Europe/Berlin", after: "2026-10-25T02:10:00+01:00", ["2026-10-26T02:30:00+01:00"])
        try assertFires(
            "45 * * * *", "Europe/Berlin", after: "2026-10-25T02:50:00+01:00", ["2026-10-25T03:45:00+01:00"])
    }

    func testNewYorkChanges() throws {
        // 2026-03-08: 02:00 EST becomes 03:00 EDT. 2026-11-01: 02:00 EDT becomes 01:00 EST.
        try assertFires(
            "15 2 * * *", "America/New_York", after: "2026-03-07T12:00:00-05:00",
            ["2026-03-08T03:00:00-04:00", "2026-03-09T02:15:00-04:00"])
        try assertFires(
            "30 1 * * *", "America/New_York", after: "2026-10-31T12:00:00-04:00",
            ["2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"])
        try assertFires(
            "*/20 1 * * *", "America/New_York", after: "2026-11-01T00:59:00-04:00",
            ["2026-11-01T01:00:00-04:00", "2026-11-01T01:20:00-04:00", "2026-11-01T01:40:00-04:00", "2026-11-02T01:00:00-05:00"])
    }

    func testLordHoweThirtyMinuteChanges() throws {
        // 2026-10-04: 02:00 +10:30 becomes 02:30 +11:00. 2026-04-05: 02:00 +11:00 becomes 01:30 +10:30.
        try assertFires(
            "0 * * * *", "Australia/Lord_Howe", after: "2026-10-04T00:30:00+10:30",
            ["2026-10-04T01:00:00+10:30", "2026-10-04T02:30:00+11:00", "2026-10-04T03:00:00+11:00"])
        try assertFires(
            "15,45 2 * * *", "Australia/Lord_Howe", after: "2026-10-04T01:50:00+10:30",
            ["2026-10-04T02:30:00+11:00", "2026-10-04T02:45:00+11:00", "2026-10-05T02:15:00+11:00"])
        try assertFires(
            "*/10 1 * * *", "Australia/Lord_Howe", after: "2026-04-05T01:25:00+11:00",
            ["2026-04-05T01:30:00+11:00", "2026-04-05T01:40:00+11:00", "2026-04-05T01:50:00+11:00", "2026-04-06T01:00:00+10:30"])
        try assertFires(
            "0 2 * * *", "Australia/Lord_Howe", after: "2026-04-05T01:45:00+10:30", ["2026-04-05T02:00:00+10:30"])
    }

    func testTimeZonesAreChecked() {
        XCTAssertThrowsError(try Schedule.timeZone(named: "Europe/Atlantis")) { error in
            XCTAssertEqual((error as? ScheduleParseError)?.field, "timezone")
            XCTAssertEqual((error as? ScheduleParseError)?.token, "Europe/Atlantis")
        }
        XCTAssertThrowsError(try Schedule.timeZone(named: ""))
        XCTAssertEqual(try Schedule.timeZone(named: "Australia/Lord_Howe").identifier, "Australia/Lord_Howe")
    }

    func testAYearlyExpressionIsFoundWithoutScanning() throws {
        // A day-by-day search would still be quick; this guards the field skipping's arithmetic.
        try assertFires(
            "0 9 * FEB MON", "Europe/Berlin", after: "2026-03-01T00:00:00+01:00",
            ["2027-02-01T09:00:00+01:00", "2027-02-08T09:00:00+01:00"])
        try assertFires("@yearly", "America/New_York", after: "2026-06-01T00:00:00-04:00", ["2027-01-01T00:00:00-05:00"])
    }
}
