import HeraldEngine
import Foundation
import Synchronization

/// One line per message on stderr, with time and level. Thread: any; writes are serialised by a lock
/// so lines from the service thread, the dispatcher and libwebsockets never interleave.
public final class Logger: Sendable {
    public let level: LogLevel
    private let lock = Protected(())

    public init(level: LogLevel) { self.level = level }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level <= self.level else { return }
        let stamp = Self.timestamp()
        let line = "\(stamp) \(level.name.uppercased()) \(message())\n"
        lock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_nsec / 1_000_000))
    }
}
