import HeraldEngine

/// Where each service thread's hub leaves a copy of its `ServerMetrics`, so that whichever thread
/// answers `/metrics` reports the whole server: its own counters as they are now, the other
/// threads' as of their last keepalive sweep (at most `StreamHub.keepaliveSweepSeconds` old).
///
/// Threads: `publish` on service thread `thread` (once a sweep), `total` on any service thread; one
/// mutex guards the slots and is held only to copy a value in or the slots out.
public final class MetricsBoard: Sendable {
    private let slots: Protected<[ServerMetrics]>

    public init(threads: Int) {
        slots = Protected(Array(repeating: ServerMetrics(), count: max(1, threads)))
    }

    public var threads: Int { slots.withLock { $0.count } }

    /// Each thread's last copy, by thread. Thread: any.
    public var copies: [ServerMetrics] { slots.withLock { $0 } }

    /// Leaves `metrics` as service thread `thread`'s latest.
    public func publish(_ metrics: ServerMetrics, thread: Int) {
        slots.withLock { $0[thread] = metrics }
    }

    /// The server's counters: `current` (the answering thread's own, fresh), left in its slot, plus
    /// every other thread's last copy. Leaving it there keeps the totals' counters from going back
    /// when the next scrape is answered by another thread: each slot only ever grows, so a later sum
    /// is never smaller than an earlier one.
    public func total(current: ServerMetrics, thread: Int) -> ServerMetrics {
        let parts = slots.withLock {
            $0[thread] = current
            return $0
        }
        return ServerMetrics.sum(parts)
    }
}
