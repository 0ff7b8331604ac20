/// How much the server says on stderr.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case error = 0
    case warning, info, debug

    public init?(name: String) {
        switch name.lowercased() {
        case "error": self = .error
        case "warning", "warn": self = .warning
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }

    public var name: String { ["error", "warning", "info", "debug"][rawValue] }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
