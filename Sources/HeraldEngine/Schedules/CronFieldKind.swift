/// One of the five fields of a cron expression: its range and the names it accepts.
/// A plain value; any thread.
public enum CronFieldKind: Int, Sendable, CaseIterable, CustomStringConvertible {
    case minute, hour, dayOfMonth, month, dayOfWeek

    public var description: String {
        switch self {
        case .minute: "minute"
        case .hour: "hour"
        case .dayOfMonth: "day-of-month"
        case .month: "month"
        case .dayOfWeek: "day-of-week"
        }
    }

    /// The values a token may name. Day-of-week accepts 7 as well as 0 for Sunday, as Vixie cron does;
    /// `CronField` folds 7 into 0.
    var range: ClosedRange<Int> {
        switch self {
        case .minute: 0...59
        case .hour: 0...23
        case .dayOfMonth: 1...31
        case .month: 1...12
        case .dayOfWeek: 0...7
        }
    }

    /// The values a field holds once parsed (`*` stands for all of these).
    var values: ClosedRange<Int> { self == .dayOfWeek ? 0...6 : range }

    /// Names (three letters, any case) and the numbers they stand for.
    var names: [String: Int] {
        switch self {
        case .month:
            ["jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12]
        case .dayOfWeek: ["sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6]
        default: [:]
        }
    }
}
