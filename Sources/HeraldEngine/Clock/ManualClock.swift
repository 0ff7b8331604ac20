import Dispatch

/// A clock that moves only when told (`advance`): timers fire, on their queue, as time passes
/// their deadline, in deadline order. For tests of leases, retries and pacing without sleeping.
public final class ManualClock: DispatcherClock {
    /// The time now and the timers. Thread: any; held only to read or change them, never while a
    /// handler runs.
    private let state = Protected(State())

    private struct State {
        var now: Double = 0
        var nextID = 0
        var timers: [Int: Entry] = [:]
    }

    private struct Entry {
        let queue: DispatchQueue
        var deadline: Double
        let interval: Double?
        let handler: @Sendable () -> Void
    }

    public init() {}

    public func now() -> Double { state.withLock { $0.now } }

    public func schedule(
        on queue: DispatchQueue, after delay: Double, repeating interval: Double?, _ handler: @escaping @Sendable () -> Void
    ) -> any ScheduledTimer {
        let id = state.withLock { state in
            state.nextID += 1
            state.timers[state.nextID] = Entry(queue: queue, deadline: state.now + max(0, delay), interval: interval, handler: handler)
            return state.nextID
        }
        return Timer(clock: self, id: id)
    }

    /// How many timers are scheduled now.
    public var scheduledCount: Int { state.withLock { $0.timers.count } }

    /// Moves time on by `seconds`, firing each timer whose deadline is passed (a repeating one as
    /// often as its period fits), in deadline order. Each handler is run on its queue and waited
    /// for before the next, so when this returns every handler due has run. Thread: any but a
    /// timer's queue.
    public func advance(by seconds: Double) {
        let end = state.withLock { $0.now + max(0, seconds) }
        while let entry = state.withLock({ Self.takeNextDue(before: end, from: &$0) }) {
            entry.queue.sync { entry.handler() }
        }
        state.withLock { $0.now = end }
    }

    /// The timer due first before `end`, with the time moved to its deadline and the timer moved
    /// to its next one (or removed); nil when none is due.
    private static func takeNextDue(before end: Double, from state: inout State) -> Entry? {
        guard
            let (id, entry) = state.timers.filter({ $0.value.deadline <= end })
                .min(by: { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }).map({ ($0.key, $0.value) })
        else { return nil }
        state.now = max(state.now, entry.deadline)
        if let interval = entry.interval, interval > 0 {
            state.timers[id]?.deadline += interval
        } else {
            state.timers.removeValue(forKey: id)
        }
        return entry
    }

    fileprivate func cancel(_ id: Int) { _ = state.withLock { $0.timers.removeValue(forKey: id) } }

    private struct Timer: ScheduledTimer {
        let clock: ManualClock
        let id: Int
        func cancel() { clock.cancel(id) }
    }
}
