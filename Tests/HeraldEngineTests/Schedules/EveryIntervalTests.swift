import XCTest

@testable import HeraldEngine

/// `every` intervals: the units, combinations, errors, and fire times on the interval's multiples.
final class EveryIntervalTests: XCTestCase {
    func testUnitsAndCombinations() throws {
        let cases: [(String, Int64)] = [
            ("10s", 10), ("10m", 600), ("2h", 7200), ("1d", 86400), ("1h30m", 5400), ("2h15m30s", 8130), ("1d12h", 129_600),
            ("90m", 5400),
        ]
        for (text, seconds) in cases {
            XCTAssertEqual(try EveryInterval(text).seconds, seconds, text)
        }
    }

    func testErrorsNameTheToken() {
        let cases: [(String, String)] = [
            ("", "empty"), ("10", "needs a unit"), ("m", "needs a number"), ("10x", "not a unit"), ("30m1h", "largest first"),
            ("1m1m", "largest first"), ("0s", "at least 1s"), ("367d", "at most 366d"), ("10 m", "not a unit"), ("-5m", "not a unit"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try EveryInterval(text), text) { error in
                let error = error as? ScheduleParseError
                XCTAssertEqual(error?.field, "every", text)
                XCTAssertEqual(error?.token, text)
                XCTAssertTrue(error?.reason.contains(reason) == true, "\(text): \(error?.reason ?? "")")
            }
        }
    }

    func testFiresOnMultiplesOfTheIntervalWhateverTheZone() throws {
        let start = ScheduleTesting.instant("2026-03-29T00:55:00Z")
        for zone in ["UTC", "Europe/Berlin", "Australia/Lord_Howe"] {
            let schedule = try ScheduleTesting.schedule("every 10m", zone)
            XCTAssertEqual(
                schedule.upcoming(after: start, count: 3),
                ["2026-03-29T01:00:00Z", "2026-03-29T01:10:00Z", "2026-03-29T01:20:00Z"].map(ScheduleTesting.instant), zone)
        }
        let sevenHours = try ScheduleTesting.schedule("every 7h")
        XCTAssertEqual(sevenHours.next(after: 0), 25200)
        XCTAssertEqual(sevenHours.next(after: 25199), 25200)
        XCTAssertEqual(sevenHours.next(after: 25200), 50400)
        XCTAssertEqual(sevenHours.next(after: -1), 0, "before 1970 too")
    }

    func testTheCommandLineFormsOfARule() throws {
        XCTAssertEqual(try ScheduleRule(parsing: "every 10m"), .every(try EveryInterval("10m")))
        XCTAssertEqual(try ScheduleRule(parsing: "@every 1h"), .every(try EveryInterval("1h")))
        XCTAssertEqual(try ScheduleRule(parsing: "*/5 * * * *").description, "*/5 * * * *")
        XCTAssertThrowsError(try ScheduleRule(parsing: "every soon"))
    }
}
