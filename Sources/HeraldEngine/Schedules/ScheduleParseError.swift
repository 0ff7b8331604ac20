/// Why a schedule expression (`cron` or `every`) cannot be used: the part it is about (a cron
/// field such as "day-of-week", or "every"), the bad token as written, and what is wrong with it.
/// A plain value; any thread.
public struct ScheduleParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// "minute", "hour", "day-of-month", "month", "day-of-week", "expression" (the whole cron
    /// expression: wrong number of fields, unknown `@` name, a date that never comes) or "every".
    public let field: String
    public let token: String
    public let reason: String

    public init(field: String, token: String, reason: String) {
        self.field = field
        self.token = token
        self.reason = reason
    }

    public var description: String { "\(field) \"\(token)\": \(reason)" }
}
