import Foundation
import HeraldEngine
import HeraldSupport
internal import CLibWebSockets
import Synchronization

/// Routes libwebsockets' own messages into Herald's log. lws's log hook is process-wide (a C function
/// pointer with no user data), so the target logger is process-wide too: the last server started wins.
enum LibWebSocketsLog {
    private static let target = Protected<(any LogSink)?>(nil)

    /// For processes with no server (the CLI, tests): errors only, and no start-up banner. lws's
    /// "SSL error: …" line about a refused server certificate is left out: the client's own error
    /// says the same, and the CLI promises one line.
    static func quietIfUnrouted() {
        guard target.withLock({ $0 == nil }) else { return }
        lws_set_log_level(
            Int32(LLL_ERR),
            { _, line in
                guard let line else { return }
                let text = String(cString: line)
                guard !text.hasPrefix("SSL error: ") else { return }
                FileHandle.standardError.write(Data("lws: \(text)".utf8))
            })
    }

    static func route(to logger: any LogSink) {
        target.withLock { $0 = logger }
        var levels = Int32(LLL_ERR | LLL_WARN)
        if logger.level >= .debug { levels |= Int32(LLL_NOTICE | LLL_INFO) }
        // Set before any context exists: it is process-wide, and it silences lws's start-up banner.
        lws_set_log_level(
            levels,
            { level, line in
                guard let line else { return }
                let text = String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines)
                let mapped: LogLevel = level & Int32(LLL_ERR) != 0 ? .error : (level & Int32(LLL_WARN) != 0 ? .warning : .debug)
                LibWebSocketsLog.target.withLock { $0 }?.log(mapped, "lws: \(text)")
            })
    }
}
