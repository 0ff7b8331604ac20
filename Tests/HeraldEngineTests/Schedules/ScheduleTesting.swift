import Foundation

@testable import HeraldEngine

/// What the schedule tests share: instants written as ISO 8601 with their offset, so every expected
/// fire time says which wall time and which side of a clock change it is.
enum ScheduleTesting {
    /// Epoch seconds of `2026-03-29T03:00:00+02:00`.
    static func instant(_ text: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: text) else { preconditionFailure("not an ISO 8601 instant: \(text)") }
        return Int64(date.timeIntervalSince1970)
    }

    static func schedule(_ expression: String, _ zone: String = "UTC") throws -> Schedule {
        Schedule(rule: try ScheduleRule(parsing: expression), timeZone: try Schedule.timeZone(named: zone))
    }

    /// The next `count` fire times after `after`, as instants.
    static func upcoming(_ expression: String, _ zone: String = "UTC", after: String, count: Int) throws -> [Int64] {
        try schedule(expression, zone).upcoming(after: instant(after), count: count)
    }
}
