import Foundation

/// A bound on work handed from worker threads to the dispatcher queue and not yet run there.
///
/// A worker calls `enter()` before it queues a hop and the hop calls `leave()` when it has run.
/// Past `limit` hops in flight, `enter()` waits: a job that produces results faster than the
/// dispatcher can number them is slowed down, instead of the queue (and the process) growing
/// without end. Threads: `enter` on worker threads (never on the dispatcher queue, which would wait
/// for itself), `leave` on the dispatcher queue. Guarded by one `NSCondition`.
final class HopGate: @unchecked Sendable {
    // @unchecked Sendable: `inFlight` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var inFlight = 0
    let limit: Int

    init(limit: Int) {
        precondition(limit > 0, "a hop gate must let at least one hop through")
        self.limit = limit
    }

    /// Waits until fewer than `limit` hops are in flight, then counts one more. Thread: a worker.
    func enter() {
        condition.lock()
        while inFlight >= limit { condition.wait() }
        inFlight += 1
        condition.unlock()
    }

    /// Counts one hop as done and wakes a waiting worker. Thread: the dispatcher queue.
    func leave() {
        condition.lock()
        inFlight -= 1
        condition.signal()
        condition.unlock()
    }

    /// Hops queued and not yet run. Thread: any.
    var current: Int {
        condition.lock()
        defer { condition.unlock() }
        return inFlight
    }
}
