import Foundation
import HeraldEngine

/// `herald schedules list`'s table: one row per schedule object of the server (`GET /api/schedules`,
/// the `schedules` reply), times in `zone`, columns as wide as their widest cell. Pure: JSON in,
/// lines out. A field missing or of the wrong type shows as `-`, and control characters in the
/// server's strings are replaced, so a misbehaving server cannot garble the terminal.
enum ScheduleTable {
    static let header = ["NAME", "RULE", "PAUSED", "NEXT", "FIRED", "SKIPPED", "MISSED", "LAST"]

    static func lines(_ schedules: [JSONValue], in zone: TimeZone) -> [String] {
        let rows = [header] + schedules.map { row($0, in: zone) }
        var widths = header.map { _ in 0 }
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    static func row(_ schedule: JSONValue, in zone: TimeZone) -> [String] {
        let paused = schedule["paused"]?.boolValue
        return [
            text(schedule["name"]), rule(schedule), paused.map { $0 ? "yes" : "no" } ?? "-",
            time(schedule["next"]?.intValue, in: zone), count(schedule["fired"]), count(schedule["skipped"]),
            count(schedule["missed"]), last(schedule["last"], in: zone),
        ]
    }

    /// `30 2 * * * (Europe/Berlin)` or `every 10m`, as `herald jobs check` writes them.
    static func rule(_ schedule: JSONValue) -> String {
        if let cron = schedule["cron"]?.stringValue {
            return "\(clean(cron)) (\(clean(schedule["timezone"]?.stringValue ?? "UTC")))"
        }
        if let every = schedule["every"]?.stringValue { return "every \(clean(every))" }
        return "-"
    }

    /// `2026-12-06T02:30:00+01:00 succeeded j-7k2m9x4q1wze`: when, the outcome, and the job if any.
    static func last(_ value: JSONValue?, in zone: TimeZone) -> String {
        guard let last = value?.objectValue else { return "-" }
        var parts = [time(last["at"]?.intValue, in: zone), text(last["outcome"])]
        if let job = last["job"]?.stringValue { parts.append(clean(job)) }
        return parts.joined(separator: " ")
    }

    /// Epoch milliseconds as a local time with its offset; `-` for none, the number itself when it
    /// lies outside years 1 to 9999.
    static func time(_ millis: Int64?, in zone: TimeZone) -> String {
        guard let millis else { return "-" }
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        guard (-62_135_596_800...253_402_300_799).contains(seconds) else { return String(millis) }
        return SchedulesCommand.localTime(seconds, in: zone)
    }

    private static func count(_ value: JSONValue?) -> String { value?.intValue.map(String.init) ?? "-" }

    private static func text(_ value: JSONValue?) -> String { value?.stringValue.map(clean) ?? "-" }

    /// The text with control characters (a terminal's escape sequences among them) replaced by `?`.
    static func clean(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }
}
