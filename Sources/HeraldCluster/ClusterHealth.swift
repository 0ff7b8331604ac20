import HeraldEngine

/// Whether this node can reach Redis, as each of its three connections last found it. Any one
/// failing makes the node `degraded`: viewers stay connected, `/healthz` answers 503 with the
/// reason, starts and cancels are refused with `unavailable` until every connection works again.
///
/// Threads: any (the publisher and tail threads, the command queue write; anyone reads); guarded
/// by its lock.
final class ClusterHealth: Sendable {
    enum Link: String, Sendable, CaseIterable {
        case publisher, tail, commands
    }

    private let failures = Protected<[Link: String]>([:])

    /// `link` works (again).
    func ok(_ link: Link) {
        failures.withLock { _ = $0.removeValue(forKey: link) }
    }

    /// `link` failed: `reason` is what a person reads in `/healthz` and in refusals.
    func failed(_ link: Link, _ reason: String) {
        failures.withLock { $0[link] = reason }
    }

    /// Whether `link` worked last time it was used (or was not used yet).
    func isWorking(_ link: Link) -> Bool {
        failures.withLock { $0[link] == nil }
    }

    /// Why the node is degraded, or nil when it is not.
    var degradedReason: String? {
        let now = failures.withLock { $0 }
        return Link.allCases.compactMap { link in now[link].map { "redis \(link.rawValue): \($0)" } }.first
    }
}
