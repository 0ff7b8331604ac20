import Foundation

/// Whether a service thread stops accepting for a while after `accept` failed, and what it says.
///
/// When the process has no descriptor left (`EMFILE`, `ENFILE`) or the kernel no memory for a socket
/// (`ENOBUFS`, `ENOMEM`), the connection stays queued on the listening socket, which stays readable:
/// accepting again at once fails again at once, and a thread that does spins on a core and writes a
/// log line per try (tens of thousands a second). So the thread stops watching its listening socket
/// until its next keepalive sweep (a second; the queued peers wait, as they would for a full
/// backlog) and tries again then. It says so at the first pause and then at most once a minute
/// (with the pauses since), and once that it accepts again after a pause it said: at most two lines
/// a minute however often a busy server runs out and recovers.
/// Other failures are about one connection (the peer reset it while it was queued: `ECONNABORTED`,
/// `EPROTO`; a firewall's `EPERM`) or none (`EINTR`): the thread goes on accepting.
///
/// Thread: the service thread that owns it (a value).
struct AcceptPause {
    /// The most one thread logs about pauses: a line at the first, then one a minute at most.
    static let logIntervalSeconds = 60.0

    /// What the thread does after a failed `accept`.
    enum Step: Equatable {
        /// Take the next queued connection (this failure concerned one connection, or none).
        case acceptNext
        /// None is left (`EAGAIN`): wait for the socket to be readable again.
        case waitForMore
        /// Stop watching the listening socket until the next sweep; log `line` if there is one.
        case pause(log: String?)
    }

    private(set) var isPaused = false
    /// When a pause was last logged, and the pauses since.
    private var loggedAt: Double?
    private var pausesSinceLog = 0
    /// Whether "accepting again" is owed once a connection is accepted.
    private var owesRecovery = false

    /// `accept` failed with `error` at `now` (seconds, monotonic). `limit`: the process's open-files
    /// limit, for the log line.
    mutating func failed(errno error: Int32, now: Double, limit: UInt64) -> Step {
        switch error {
        case EAGAIN, EWOULDBLOCK: return .waitForMore
        case EINTR, ECONNABORTED, EPROTO, EPERM: return .acceptNext
        default: break
        }
        isPaused = true
        pausesSinceLog += 1
        if let loggedAt, now - loggedAt < Self.logIntervalSeconds { return .pause(log: nil) }
        let reason = Self.reason(error, limit: limit)
        let line =
            loggedAt == nil
            ? "cannot accept connections: \(reason); accepting again in a second, waiting connections wait"
            : "still cannot accept connections: \(reason); paused \(pausesSinceLog) times since the last line"
        loggedAt = now
        pausesSinceLog = 0
        owesRecovery = true
        return .pause(log: line)
    }

    /// The keepalive sweep: whether to watch the listening socket again (it was paused).
    mutating func sweep() -> Bool {
        defer { isPaused = false }
        return isPaused
    }

    /// A connection was accepted: the line to log when this is the first since a logged pause.
    mutating func accepted() -> String? {
        guard owesRecovery else { return nil }
        owesRecovery = false
        return "accepting connections again"
    }

    private static func reason(_ error: Int32, limit: UInt64) -> String {
        let text = String(cString: strerror(error))
        switch error {
        case EMFILE:
            return "\(text) (this process may have \(limit); raise LimitNOFILE or `ulimit -n`, or lower --max-connections)"
        case ENFILE: return "\(text) (the whole system's limit, fs.file-max)"
        default: return text
        }
    }
}
