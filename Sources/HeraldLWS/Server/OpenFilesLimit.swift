import Foundation

/// How many descriptors the process may hold open (`RLIMIT_NOFILE`), and raising its soft limit to
/// what the connection limit needs.
///
/// Every connection holds a descriptor, and so do the data files, a search's open files, Redis
/// connections and each service thread's own. A login shell on Debian starts programs with a soft
/// limit of 1,024 and a hard one far higher; a server run from it with the default 10,000
/// connections would run out near 1,000. So `herald serve` raises its soft limit to the connection
/// limit plus `reserve`, within the hard limit (which only root may raise), and says so when the
/// hard limit is lower; it never lowers a limit. What it still runs out of is met by pausing
/// accepts (`AcceptPause`).
///
/// Thread: any (`raise` before the server starts, as the limit is the process's).
public enum OpenFilesLimit {
    /// Descriptors wanted beside the connections: the data files, searches' open files (a thread
    /// each), Redis, webhook and worker connections, each service thread's pipe and listener.
    public static let reserve = 1_024

    /// The soft and hard limits now.
    public static func current() -> (soft: UInt64, hard: UInt64) {
        var limits = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return (0, 0) }
        return (UInt64(limits.rlim_cur), UInt64(limits.rlim_max))
    }

    /// The soft limit to ask for: enough for `maxConnections` and the reserve, within `hard`, and
    /// never below `soft`.
    public static func wanted(soft: UInt64, hard: UInt64, maxConnections: Int) -> UInt64 {
        max(soft, min(hard, needed(for: maxConnections)))
    }

    /// Descriptors for `maxConnections` and the reserve.
    static func needed(for maxConnections: Int) -> UInt64 { UInt64(max(0, maxConnections)) + UInt64(reserve) }

    /// What `raise` did, as a log line and whether it is a warning.
    public struct Outcome: Equatable, Sendable {
        public let line: String?
        public let isWarning: Bool
    }

    /// Raises the soft limit for `maxConnections`; the line to log (nil: the limit was enough).
    public static func raise(forConnections maxConnections: Int) -> Outcome {
        let (soft, hard) = current()
        let target = wanted(soft: soft, hard: hard, maxConnections: maxConnections)
        var raisedTo = soft
        if target > soft {
            var limits = rlimit(rlim_cur: rlim_t(target), rlim_max: rlim_t(hard))
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits) == 0 { raisedTo = target }
        }
        return outcome(soft: soft, hard: hard, now: raisedTo, maxConnections: maxConnections)
    }

    /// The log line for a limit that was `soft` and is `now` (pure, for tests).
    public static func outcome(soft: UInt64, hard: UInt64, now: UInt64, maxConnections: Int) -> Outcome {
        let needed = needed(for: maxConnections)
        if now < needed {
            let why = now < hard ? "it could not be raised" : "the hard limit is \(hard)"
            return Outcome(
                line: "open files: this process may have \(now) (\(why)), and --max-connections \(maxConnections) wants "
                    + "\(needed): connections past about \(max(0, Int(now) - reserve)) may wait; raise LimitNOFILE or `ulimit -Hn`",
                isWarning: true)
        }
        if now > soft { return Outcome(line: "open files: raised the limit from \(soft) to \(now)", isWarning: false) }
        return Outcome(line: nil, isWarning: false)
    }
}
