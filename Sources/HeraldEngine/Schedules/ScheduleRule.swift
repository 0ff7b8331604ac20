import Foundation

/// When a schedule fires: a cron expression (in a time zone), or an `every` interval.
/// A plain value; any thread.
public enum ScheduleRule: Sendable, Equatable, CustomStringConvertible {
    case cron(CronExpression)
    case every(EveryInterval)

    /// `every 10m` (or `@every 10m`) is an interval; anything else a cron expression. For the
    /// command line, where one argument holds either.
    public init(parsing text: String) throws(ScheduleParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for prefix in ["every ", "@every "] where trimmed.lowercased().hasPrefix(prefix) {
            self = .every(try EveryInterval(String(trimmed.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)))
            return
        }
        self = .cron(try CronExpression(trimmed))
    }

    public var isCron: Bool {
        if case .cron = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .cron(let expression): expression.text
        case .every(let interval): "every \(interval.text)"
        }
    }
}
