import Foundation

/// Whether writes to the data folder work: which kinds of file cannot be written now and why, and
/// how many writes failed in all. It says so in the log once when a kind starts failing, at most
/// once a minute while writes keep failing (with how many did), and once when every kind works
/// again, so a full disk costs a few log lines, not one per write. `/healthz` reports `problem`.
///
/// Thread: any; the state is behind its lock, and `log` is called outside it.
public final class StorageHealth: Sendable {
    private struct State {
        /// What cannot be written now ("history", "archive", "logs") and the last error.
        var failing: [String: String] = [:]
        var failures = 0
        /// Failures not yet told in the log, and when the log last spoke (`now` time).
        var untold = 0
        var lastTold: Double?
    }

    private let state = Protected(State())
    private let log: @Sendable (String) -> Void
    /// Seconds on a monotonic clock.
    private let now: @Sendable () -> Double
    /// Least seconds between two log lines about failures that go on.
    let logInterval: Double

    public init(
        logInterval: Double = 60, now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime },
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.logInterval = logInterval
        self.now = now
        self.log = log
    }

    /// A write of `what` failed with `error`; `path` is the file or folder.
    public func failed(_ what: String, path: String, _ error: String) {
        let time = now()
        let line: String? = state.withLock { state in
            state.failures += 1
            let isNew = state.failing.updateValue("cannot write \(what) to \(path): \(error)", forKey: what) == nil
            if isNew || state.lastTold.map({ time - $0 >= logInterval }) ?? true {
                let untold = state.untold
                state.untold = 0
                state.lastTold = time
                let more = untold > 0 ? " (\(untold) more failed write(s) since the last line)" : ""
                return "storage: cannot write \(what) to \(path): \(error)\(more); kept in memory and written when space returns"
            }
            state.untold += 1
            return nil
        }
        if let line { log(line) }
    }

    /// A write of `what` worked: it is no longer failing.
    public func succeeded(_ what: String) {
        let line: String? = state.withLock { state in
            guard state.failing.removeValue(forKey: what) != nil else { return nil }
            guard state.failing.isEmpty else { return nil }
            state.untold = 0
            return "storage: writes to the data folder work again; what waited has been written"
        }
        if let line { log(line) }
    }

    /// Nothing of `what` waits any more, though no write of it worked (what waited was dropped: its
    /// job left memory): it is no longer failing, and the log is not told that writes work.
    public func abandoned(_ what: String) {
        state.withLock { state in
            guard state.failing.removeValue(forKey: what) != nil, state.failing.isEmpty else { return }
            state.untold = 0
        }
    }

    /// Says something else about the data folder in the same log (a file that cannot be read).
    public func note(_ line: String) { log(line) }

    /// Why writes fail now, for `/healthz`; nil while they work.
    public var problem: String? {
        state.withLock { state in
            state.failing.isEmpty ? nil : state.failing.keys.sorted().compactMap { state.failing[$0] }.joined(separator: "; ")
        }
    }

    /// Writes that failed since the start.
    public var failures: Int { state.withLock { $0.failures } }
}
