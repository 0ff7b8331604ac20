import Foundation

/// A rule in a time zone: the instants it fires at. `next(after:)` is the calculator behind
/// schedules and `herald schedules next`. A plain value; any thread.
///
/// Cron expressions match wall-clock minutes of `timeZone`; on the days its clocks change:
/// - a wall time that does not exist (skipped when clocks go forward) fires once, at the first
///   instant after the gap: `30 2 * * *` in Europe/Berlin fires at 03:00 CEST on the spring day,
///   and `*/15 * * * *` fires once at 03:00 for the four skipped quarters and 03:00 itself;
/// - a wall time that occurs twice (repeated when clocks go back) fires once, at its FIRST
///   occurrence: `30 2 * * *` in Europe/Berlin fires at 02:30 CEST, not again at 02:30 CET.
/// Both follow from one rule: a wall time W fires at the first instant whose wall clock shows W
/// or later (`ZonedWallClock.firstInstant(reaching:)`). Shifts of any size work, such as
/// Australia/Lord_Howe's 30 minutes. `every` intervals ignore the zone.
public struct Schedule: Sendable, Equatable {
    public let rule: ScheduleRule
    public let timeZone: TimeZone

    public init(rule: ScheduleRule, timeZone: TimeZone = Schedule.utc) {
        self.rule = rule
        self.timeZone = timeZone
    }

    public static let utc = TimeZone(identifier: "UTC")!

    /// An IANA zone name known to the system's tz database ("Europe/Berlin", "UTC").
    public static func timeZone(named name: String) throws(ScheduleParseError) -> TimeZone {
        guard !name.isEmpty, let zone = TimeZone(identifier: name) else {
            throw ScheduleParseError(
                field: "timezone", token: name, reason: "not a time zone of the system's tz database (such as Europe/Berlin or UTC)")
        }
        return zone
    }

    /// The first fire instant strictly after `instant` (epoch seconds); nil when the expression
    /// fires no more within the search horizon (nine years: more than any valid expression needs).
    public func next(after instant: Int64) -> Int64? {
        switch rule {
        case .every(let interval):
            return interval.next(after: instant)
        case .cron(let expression):
            let clock = ZonedWallClock(zone: timeZone)
            // The first matching wall time after the wall clock's reading may already have fired,
            // when the clock has been set back and shows a time it showed before; such ones are
            // passed over (at most the repeated span's worth).
            var wall = clock.wall(at: instant)
            for _ in 0..<100_000 {
                guard let candidate = expression.nextWallTime(after: wall) else { return nil }
                let fire = clock.firstInstant(reaching: candidate)
                if fire > instant { return fire }
                wall = candidate
            }
            return nil
        }
    }

    /// As `next(after:)`, for an instant in epoch milliseconds; the answer is in milliseconds too.
    public func next(afterMilliseconds instant: Int64) -> Int64? {
        next(after: CivilCalendar.floorDivide(instant, 1000)).map { $0 * 1000 }
    }

    /// Up to `count` fire instants after `instant`, in order.
    public func upcoming(after instant: Int64, count: Int) -> [Int64] {
        var instants: [Int64] = []
        var cursor = instant
        while instants.count < count, let fire = next(after: cursor) {
            instants.append(fire)
            cursor = fire
        }
        return instants
    }
}
