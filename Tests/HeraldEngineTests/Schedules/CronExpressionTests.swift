import XCTest

@testable import HeraldEngine

/// Reading cron expressions: every form a field may take, the names, and one clear error naming
/// the field and the token for everything refused.
final class CronExpressionTests: XCTestCase {
    private func values(_ text: String, _ kind: CronFieldKind) throws -> [Int] {
        try CronField.parse(Substring(text), as: kind).allowedValues
    }

    private func error(_ text: String) -> ScheduleParseError? {
        do {
            _ = try CronExpression(text)
            return nil
        } catch {
            return error
        }
    }

    func testFieldsTakeValuesRangesStepsAndLists() throws {
        XCTAssertEqual(try values("*", .hour), Array(0...23))
        XCTAssertEqual(try values("5", .minute), [5])
        XCTAssertEqual(try values("10-13", .minute), [10, 11, 12, 13])
        XCTAssertEqual(try values("*/15", .minute), [0, 15, 30, 45])
        XCTAssertEqual(try values("1-30/5", .minute), [1, 6, 11, 16, 21, 26])
        XCTAssertEqual(try values("5/20", .minute), [5, 25, 45], "A/S runs from A to the end of the range")
        XCTAssertEqual(try values("1,3,20-22,*/12", .hour), [0, 1, 3, 12, 20, 21, 22])
        XCTAssertEqual(try values("*/10", .dayOfMonth), [1, 11, 21, 31])
        XCTAssertEqual(try values("*/5", .month), [1, 6, 11])
    }

    func testMonthsAndDaysHaveNamesInAnyCase() throws {
        XCTAssertEqual(try values("JAN,mar,Dec", .month), [1, 3, 12])
        XCTAssertEqual(try values("jun-AUG", .month), [6, 7, 8])
        XCTAssertEqual(try values("MON-FRI", .dayOfWeek), [1, 2, 3, 4, 5])
        XCTAssertEqual(try values("sat,Sun", .dayOfWeek), [0, 6])
    }

    func testSevenIsSundayLikeZero() throws {
        XCTAssertEqual(try values("7", .dayOfWeek), [0])
        XCTAssertEqual(try values("5-7", .dayOfWeek), [0, 5, 6])
        XCTAssertEqual(try values("0-7", .dayOfWeek), Array(0...6))
        XCTAssertEqual(try values("*/2", .dayOfWeek), [0, 2, 4, 6])
    }

    func testNamedExpressionsAreTheirFiveFields() throws {
        let pairs = [
            ("@hourly", "0 * * * *"), ("@daily", "0 0 * * *"), ("@midnight", "0 0 * * *"), ("@weekly", "0 0 * * 0"),
            ("@monthly", "0 0 1 * *"), ("@yearly", "0 0 1 1 *"), ("@annually", "0 0 1 1 *"), ("@DAILY", "0 0 * * *"),
        ]
        for (name, fields) in pairs {
            let named = try CronExpression(name)
            let spelled = try CronExpression(fields)
            XCTAssertEqual(
                [named.minute, named.hour, named.dayOfMonth, named.month, named.dayOfWeek],
                [spelled.minute, spelled.hour, spelled.dayOfMonth, spelled.month, spelled.dayOfWeek], name)
        }
    }

    func testBothDayFieldsRestrictedMeansEither() throws {
        // 2026-06-01 is a Monday.
        let either = try CronExpression("0 0 13 * FRI")
        XCTAssertTrue(either.matchesDay(dayOfMonth: 13, weekday: 2), "the 13th, a Tuesday")
        XCTAssertTrue(either.matchesDay(dayOfMonth: 5, weekday: 5), "a Friday, the 5th")
        XCTAssertFalse(either.matchesDay(dayOfMonth: 6, weekday: 6))
        let onlyWeekday = try CronExpression("0 0 * * FRI")
        XCTAssertFalse(onlyWeekday.matchesDay(dayOfMonth: 13, weekday: 2), "day-of-month * leaves day-of-week alone to decide")
        XCTAssertTrue(onlyWeekday.matchesDay(dayOfMonth: 5, weekday: 5))
        let onlyDay = try CronExpression("0 0 13 * *")
        XCTAssertTrue(onlyDay.matchesDay(dayOfMonth: 13, weekday: 2))
        XCTAssertFalse(onlyDay.matchesDay(dayOfMonth: 5, weekday: 5))
        let stepped = try CronExpression("0 0 */10 * 1")
        XCTAssertTrue(stepped.matchesDay(dayOfMonth: 8, weekday: 1), "*/10 restricts: a Monday the 8th matches by its weekday")
    }

    func testTheOrRuleOverMonths() throws {
        let fires = try ScheduleTesting.upcoming("0 12 1 * MON", after: "2026-06-01T12:00:00Z", count: 6)
        let expected = [
            "2026-06-08T12:00:00Z", "2026-06-15T12:00:00Z", "2026-06-22T12:00:00Z", "2026-06-29T12:00:00Z", "2026-07-01T12:00:00Z",
            "2026-07-06T12:00:00Z",
        ]
        XCTAssertEqual(fires, expected.map(ScheduleTesting.instant))
    }

    func testErrorsNameTheFieldAndTheToken() {
        let cases: [(String, String, String, String)] = [
            ("61 * * * *", "minute", "61", "out of range (0-59)"),
            ("* 24 * * *", "hour", "24", "out of range (0-23)"),
            ("* * 0 * *", "day-of-month", "0", "out of range (1-31)"),
            ("* * * 13 *", "month", "13", "out of range (1-12)"),
            ("* * * * 8", "day-of-week", "8", "out of range (0-7)"),
            ("* * * FOO *", "month", "FOO", "a name such as JAN"),
            ("* * * * MOM", "day-of-week", "MOM", "a name such as MON"),
            ("*/0 * * * *", "minute", "*/0", "step"),
            ("*/61 * * * *", "minute", "*/61", "step"),
            ("30-10 * * * *", "minute", "30-10", "must go upwards"),
            ("1,,2 * * * *", "minute", "", "empty item"),
            ("1-2-3 * * * *", "minute", "1-2-3", "more than one \"-\""),
            ("-5 * * * *", "minute", "-5", "is not a number"),
            ("+5 * * * *", "minute", "+5", "is not a number"),
            ("* * * *", "expression", "* * * *", "must have 5 fields"),
            ("* * * * * *", "expression", "* * * * * *", "not 6"),
            ("@fortnightly", "expression", "@fortnightly", "unknown name"),
            ("0 0 30 2 *", "expression", "0 0 30 2 *", "names no date"),
            ("0 0 31 APR,JUN,SEP,NOV *", "expression", "0 0 31 APR,JUN,SEP,NOV *", "names no date"),
        ]
        for (text, field, token, reason) in cases {
            guard let error = error(text) else {
                XCTFail("\(text) was accepted")
                continue
            }
            XCTAssertEqual(error.field, field, text)
            XCTAssertEqual(error.token, token, text)
            XCTAssertTrue(error.reason.contains(reason), "\(text): \(error.reason)")
            XCTAssertTrue(error.description.hasPrefix("\(field) \"\(token)\": "), error.description)
        }
    }

    func testFebruaryTheTwentyNinthIsAccepted() throws {
        let fires = try ScheduleTesting.upcoming("0 0 29 2 *", after: "2026-01-01T00:00:00Z", count: 2)
        XCTAssertEqual(fires, ["2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"].map(ScheduleTesting.instant))
    }
}
