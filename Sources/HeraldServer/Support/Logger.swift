import Dispatch
import Foundation
import HeraldEngine
import HeraldSupport
import Synchronization

/// One line per message on stderr, with time and level. Thread: any. A caller never waits for
/// stderr (the service thread logs too, and a pipe nobody reads would stop it): the line is made
/// on the caller and written, in order, by the logger's own queue. While stderr cannot keep up,
/// at most `maxPending` lines wait; later ones are counted, and the count is written once it drains.
public final class Logger: LogSink {
    public let level: LogLevel
    /// Lines waiting at most; past it new lines are counted, not kept.
    public let maxPending: Int
    /// Writes lines in the order they were logged. Thread: its own.
    private let writer = DispatchQueue(label: "herald.log", qos: .utility)
    private let write: @Sendable ([UInt8]) -> Void
    /// Lines handed to `writer` and not written yet. Thread: any (atomic).
    private let pending = Atomic<Int>(0)
    /// Lines not kept since the last line written. Thread: any (atomic).
    private let dropped = Atomic<Int>(0)

    /// `write` takes each whole line; by default it goes to stderr.
    public init(level: LogLevel, maxPending: Int = 10_000, write: @escaping @Sendable ([UInt8]) -> Void = Logger.writeToStandardError) {
        self.level = level
        self.maxPending = maxPending
        self.write = write
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level <= self.level else { return }
        let line = Array("\(Self.timestamp()) \(level.name.uppercased()) \(message())\n".utf8)
        guard pending.add(1, ordering: .relaxed).newValue <= maxPending else {
            pending.subtract(1, ordering: .relaxed)
            dropped.add(1, ordering: .relaxed)
            return
        }
        // Lines dropped before this one are said where they would have been.
        let lost = dropped.exchange(0, ordering: .relaxed)
        writer.async { [self] in
            if lost > 0 { write(Self.droppedLine(lost)) }
            write(line)
            pending.subtract(1, ordering: .relaxed)
        }
    }

    private static func droppedLine(_ count: Int) -> [UInt8] {
        Array("\(timestamp()) WARNING \(count) log line(s) dropped: stderr could not keep up\n".utf8)
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }

    /// Waits until every line logged before the call is written: before the process exits.
    /// Thread: any but the logger's own.
    public func flush() {
        writer.sync {
            let lost = dropped.exchange(0, ordering: .relaxed)
            if lost > 0 { write(Self.droppedLine(lost)) }
        }
    }

    /// All of `line` to file descriptor 2, whatever it takes; a closed stderr loses it.
    public static func writeToStandardError(_ line: [UInt8]) {
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    private static func timestamp() -> String {
        let now = WallClock.timespecNow()
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_nsec / 1_000_000))
    }
}
