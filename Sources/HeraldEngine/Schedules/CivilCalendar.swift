/// Proleptic Gregorian calendar arithmetic on whole numbers, with no time zone: days since
/// 1970-01-01 to and from (year, month, day), and the weekday. Wall-clock times are handled as
/// "wall seconds": the seconds since 1970-01-01 00:00 of that wall clock, as if it were UTC.
/// Pure functions; any thread.
enum CivilCalendar {
    struct Date: Equatable {
        var year: Int
        var month: Int
        var day: Int
    }

    /// Days from 1970-01-01 to the date (H. Hinnant's `days_from_civil`).
    static func days(_ date: Date) -> Int64 {
        let year = Int64(date.month <= 2 ? date.year - 1 : date.year)
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let shiftedMonth = Int64(date.month > 2 ? date.month - 3 : date.month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(date.day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
    static func date(_ days: Int64) -> Date {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return Date(year: Int(year), month: Int(month), day: Int(day))
    }

    /// 0 for Sunday … 6 for Saturday (1970-01-01 was a Thursday).
    static func weekday(_ days: Int64) -> Int {
        Int(((days % 7) + 11) % 7)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    /// Floor division, for wall seconds before 1970.
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}
