import Foundation

/// A five-field cron expression, `minute hour day-of-month month day-of-week`, or one of the names
/// `@hourly`, `@daily`, `@midnight`, `@weekly`, `@monthly`, `@yearly`, `@annually`. It knows which
/// wall-clock minutes match; which instants those are in a time zone is `CronSchedule`'s part.
/// A plain value; any thread.
///
/// Days follow Vixie cron: when day-of-month and day-of-week are both restricted (neither is
/// exactly `*`), a day matches when EITHER matches (`0 0 1 * MON`: the 1st, and every Monday);
/// otherwise both must (which, with one of them `*`, means the other alone decides).
public struct CronExpression: Sendable, Equatable {
    public let minute: CronField
    public let hour: CronField
    public let dayOfMonth: CronField
    public let month: CronField
    public let dayOfWeek: CronField
    /// The text it was parsed from, as given.
    public let text: String

    static let aliases: [String: String] = [
        "@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0",
        "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
    ]

    /// Parses an expression; the error names the field and the bad token.
    public init(_ text: String) throws(ScheduleParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var source = Substring(trimmed)
        if trimmed.hasPrefix("@") {
            guard let expanded = Self.aliases[trimmed.lowercased()] else {
                throw ScheduleParseError(
                    field: "expression", token: trimmed,
                    reason: "unknown name; the names are \(Self.aliases.keys.sorted().joined(separator: ", "))")
            }
            source = Substring(expanded)
        }
        let fields = source.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count == 5 else {
            throw ScheduleParseError(
                field: "expression", token: trimmed,
                reason: "must have 5 fields (minute hour day-of-month month day-of-week), not \(fields.count)")
        }
        minute = try CronField.parse(fields[0], as: .minute)
        hour = try CronField.parse(fields[1], as: .hour)
        dayOfMonth = try CronField.parse(fields[2], as: .dayOfMonth)
        month = try CronField.parse(fields[3], as: .month)
        dayOfWeek = try CronField.parse(fields[4], as: .dayOfWeek)
        self.text = text
        guard firesAtAll else {
            throw ScheduleParseError(
                field: "expression", token: trimmed, reason: "names no date that exists (day-of-month never falls in the months given)")
        }
    }

    /// Whether a date matches the day fields and the month.
    func matches(_ date: CivilCalendar.Date, weekday: Int) -> Bool {
        month.allows(date.month) && matchesDay(dayOfMonth: date.day, weekday: weekday)
    }

    /// The day rule: OR when both day fields restrict, AND otherwise.
    func matchesDay(dayOfMonth day: Int, weekday: Int) -> Bool {
        if !dayOfMonth.isStar && !dayOfWeek.isStar {
            return dayOfMonth.allows(day) || dayOfWeek.allows(weekday)
        }
        return dayOfMonth.allows(day) && dayOfWeek.allows(weekday)
    }

    /// An expression whose day-of-month can never fall in its months (`0 0 30 2 *`) would search
    /// for ever; it is refused when parsed. With both day fields restricted the OR rule always finds
    /// days (every week has every weekday); otherwise the smallest day-of-month must exist in one
    /// of the months (February counted with its 29th).
    private var firesAtAll: Bool {
        if !dayOfWeek.isStar && !dayOfMonth.isStar { return true }
        return month.allowedValues.contains { month in
            dayOfMonth.first <= (month == 2 ? 29 : CivilCalendar.daysInMonth(year: 2001, month: month))
        }
    }

    /// The first matching wall-clock minute strictly after `wallSeconds` (wall seconds: see
    /// `CivilCalendar`), skipping by field: a month that does not match jumps to the next month, a
    /// day to the next day, an hour to the next allowed hour. Nil only past `limitDays` of search.
    func nextWallTime(after wallSeconds: Int64, limitDays: Int64 = 366 * 9) -> Int64? {
        let startMinute = CivilCalendar.floorDivide(wallSeconds, 60) + 1
        var days = CivilCalendar.floorDivide(startMinute, 1440)
        var minuteOfDay = Int(startMinute - days * 1440)
        let lastDay = days + limitDays
        while days <= lastDay {
            let date = CivilCalendar.date(days)
            if !month.allows(date.month) {
                // To the 1st of the next month (days to the end of this one, plus one).
                days += Int64(CivilCalendar.daysInMonth(year: date.year, month: date.month) - date.day + 1)
                minuteOfDay = 0
                continue
            }
            if !matchesDay(dayOfMonth: date.day, weekday: CivilCalendar.weekday(days)) {
                days += 1
                minuteOfDay = 0
                continue
            }
            var hourOfDay = minuteOfDay / 60
            var minuteOfHour = minuteOfDay % 60
            while let allowedHour = hour.next(atOrAfter: hourOfDay), allowedHour <= 23 {
                if allowedHour != hourOfDay { minuteOfHour = 0 }
                if let allowedMinute = minute.next(atOrAfter: minuteOfHour), allowedMinute <= 59 {
                    return days * 86400 + Int64(allowedHour * 3600 + allowedMinute * 60)
                }
                hourOfDay = allowedHour + 1
                minuteOfHour = 0
            }
            days += 1
            minuteOfDay = 0
        }
        return nil
    }
}
