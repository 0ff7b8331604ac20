import HeraldEngine
import HeraldSupport

/// When each key's or JWT's REST use from an address was last recorded in the audit, shared by every
/// service thread's hub (one per server, through `ServerConfiguration`): a credential is recorded once
/// a `interval` per address whichever thread its requests land on (`StreamHub.auditRESTUse`).
///
/// Threads: any service thread; the map is behind a mutex held only for a lookup or a sweep. Times
/// are the monotonic clock's, which no wall-clock step moves.
public final class CredentialUseLog: Sendable {
    private let recorded = Protected<[String: Double]>([:])
    public let interval: Double

    public init(interval: Double = 60) { self.interval = interval }

    /// Whether this use is the first of `key` (a credential and an address) in `interval`; if so it
    /// counts as recorded from now.
    func shouldRecord(_ key: String, now: Double = MonotonicCondition.now()) -> Bool {
        recorded.withLock { recorded in
            if let last = recorded[key], now - last < interval { return false }
            recorded[key] = now
            return true
        }
    }

    /// Forgets the uses recorded more than an interval ago, so the map holds at most a minute's worth.
    func forgetOld(now: Double = MonotonicCondition.now()) {
        recorded.withLock { recorded in
            guard !recorded.isEmpty else { return }
            recorded = recorded.filter { now - $0.value < interval }
        }
    }
}
