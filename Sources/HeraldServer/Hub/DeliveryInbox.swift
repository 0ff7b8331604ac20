import HeraldEngine
import Synchronization

/// Where the engine (and helpers that read files) leave deliveries for the service thread, and how
/// they wake it. Two lanes: `ordered` (events, snapshots and resumes, in the engine's order) and
/// `replies` (everything else, taken first on every turn).
///
/// With several service threads (`follow`) it forwards what is posted to their `StreamFanOut`.
///
/// Threads: `post`, `requestStop` and `wake` run on the dispatcher queue or any other thread; `drain`
/// on the service thread; `setWaker` on the service thread. One mutex guards the lanes and the
/// waker, so the waker (the transport's `lws_cancel_service`) is never called on a context that is
/// being destroyed.
public final class DeliveryInbox: Sendable {
    private struct State {
        /// Ordered entries are `ordered[head...]`; a slice is taken by moving `head`, not by copying.
        var ordered: [Delivery] = []
        var head = 0
        var replies: [Delivery] = []
        /// Events (not answers) in the ordered lane, and their encoded bytes.
        var events = 0
        var eventBytes = 0
        var waker: (@Sendable () -> Void)?
        var stopRequested = false
        /// Set when events were dropped because the service thread fell too far behind.
        var overflowed = false
        var streamReset = false
        /// With several service threads: where everything posted goes instead (`follow`).
        var fanOut: StreamFanOut?
        var isEmpty: Bool { head == ordered.count && replies.isEmpty }
    }

    private let state = Protected(State())
    /// Events held at most (by count and by bytes) before the inbox drops them and every client is
    /// resynced instead: memory stays bounded even if the service thread cannot keep up.
    public let capacity: Int
    public let capacityBytes: Int
    /// Events posted and not yet drained: read without the lock by the benchmark ticker's pacing.
    private let undelivered = Atomic<Int>(0)
    /// Stream connections whose outbox holds more than `StreamHub.backlogThreshold` bytes, as the
    /// service thread last counted them: the other half of "delivery keeps up" for the benchmark
    /// ticker. Written on the service thread, read anywhere; relaxed (it only paces a producer).
    private let backlogged = Atomic<Int>(0)
    private let streams = Atomic<Int>(0)
    /// Whether the inbox forwards to a `StreamFanOut` (`follow`): read without the lock by the pacing.
    private let following = Atomic<Bool>(false)

    public init(capacity: Int = 65_536, capacityBytes: Int = 64 << 20) {
        self.capacity = capacity
        self.capacityBytes = capacityBytes
    }

    /// Events waiting for the service thread (with several, how far the slowest is behind the shared
    /// ring). Thread: any; a relaxed load.
    public var undeliveredEvents: Int {
        if let fanOut = followed { return fanOut.undeliveredEvents }
        return undelivered.load(ordering: .relaxed)
    }

    /// Makes the inbox a door to several service threads' fan-out: what is posted here goes there
    /// (events into the shared ring, answers to the thread that owns their connection), and the
    /// pacing reads it. Thread: any, before the server starts.
    public func follow(_ fanOut: StreamFanOut) {
        state.withLock { $0.fanOut = fanOut }
        following.store(true, ordering: .releasing)
    }

    private var followed: StreamFanOut? {
        guard following.load(ordering: .acquiring) else { return nil }
        return state.withLock { $0.fanOut }
    }

    /// Whether more than a tenth of the connections hold a backlog: a producer that can wait should.
    /// One stalled client does not hold everyone back (it is resynced or closed instead). Thread: any.
    public var deliveryIsBehind: Bool {
        if let fanOut = followed { return fanOut.deliveryIsBehind }
        let backlogged = backlogged.load(ordering: .relaxed)
        return backlogged > 0 && backlogged * 10 > streams.load(ordering: .relaxed)
    }

    /// Records how many connections are backlogged, of how many. Thread: the service thread.
    public func noteBacklog(backlogged count: Int, of total: Int) {
        backlogged.store(count, ordering: .relaxed)
        streams.store(total, ordering: .relaxed)
    }

    /// Queues a delivery in its lane; wakes the service thread only when the inbox was empty, since
    /// one wake-up drains what is queued by then (or wakes itself again). Thread: any.
    public func post(_ delivery: Delivery) {
        let forward: StreamFanOut? = state.withLock { state in
            if let fanOut = state.fanOut { return fanOut }
            let wasEmpty = state.isEmpty
            guard delivery.isOrdered else {
                state.replies.append(delivery)
                if wasEmpty { state.waker?() }
                return nil
            }
            if case .event(let event) = delivery {
                if state.events >= capacity || state.eventBytes + event.json.count > capacityBytes { dropEvents(&state) }
                state.events += 1
                state.eventBytes += event.json.count
                undelivered.wrappingAdd(1, ordering: .relaxed)
            }
            state.ordered.append(delivery)
            if wasEmpty { state.waker?() }
            return nil
        }
        forward?.post(delivery)
    }

    /// Queues a batch of events in the ordered lane under one lock (the engine hands them over a
    /// batch at a time), waking the service thread only when the inbox was empty. Thread: any.
    public func post(events: [SequencedEvent]) {
        guard !events.isEmpty else { return }
        let forward: StreamFanOut? = state.withLock { state in
            if let fanOut = state.fanOut { return fanOut }
            let wasEmpty = state.isEmpty
            for event in events {
                if state.events >= capacity || state.eventBytes + event.json.count > capacityBytes { dropEvents(&state) }
                state.events += 1
                state.eventBytes += event.json.count
                state.ordered.append(.event(event))
            }
            undelivered.wrappingAdd(events.count, ordering: .relaxed)
            if wasEmpty { state.waker?() }
            return nil
        }
        forward?.post(events: events)
    }

    /// Drops the queued events, keeping the answers (someone waits for each), and marks the overflow.
    private func dropEvents(_ state: inout State) {
        state.ordered = state.ordered[state.head...].filter { if case .event = $0 { return false } else { return true } }
        state.head = 0
        undelivered.wrappingSubtract(state.events, ordering: .relaxed)
        state.events = 0
        state.eventBytes = 0
        state.overflowed = true
    }

    /// The engine's stream restarted (a new epoch): the events queued so far lead nowhere, so they
    /// go, and every stream gets a fresh snapshot; what the engine posts after this call follows it.
    /// Thread: any.
    public func resetStream() {
        let forward: StreamFanOut? = state.withLock { state in
            if let fanOut = state.fanOut { return fanOut }
            dropEvents(&state)
            state.streamReset = true
            state.waker?()
            return nil
        }
        forward?.resetStream()
    }

    /// Asks the service thread to close every connection and stop. Thread: any.
    public func requestStop() {
        state.withLock { state in
            state.stopRequested = true
            state.waker?()
        }
    }

    /// Wakes the service thread without a delivery (shutdown's ticking, or the service thread
    /// itself when it left deliveries for its next turn). Thread: any.
    public func wake() {
        state.withLock { $0.waker?() }
    }

    /// What one turn of the service loop takes.
    public struct Drained {
        /// Events were dropped before `ordered`: every stream needs a fresh snapshot.
        public var overflowed: Bool
        /// The engine's stream restarted before `ordered`: the ring's events are of the old epoch.
        public var streamReset: Bool
        public var replies: [Delivery]
        public var ordered: [Delivery]
        /// More ordered deliveries are waiting for the next turn.
        public var more: Bool
        public var stopRequested: Bool

        public init(
            overflowed: Bool, streamReset: Bool = false, replies: [Delivery], ordered: [Delivery], more: Bool, stopRequested: Bool
        ) {
            self.overflowed = overflowed
            self.streamReset = streamReset
            self.replies = replies
            self.ordered = ordered
            self.more = more
            self.stopRequested = stopRequested
        }
    }

    /// Takes every reply and, oldest first, ordered deliveries up to `maxEntries` and about
    /// `maxBytes` of encoded events (at least one). Bounding the slice bounds the work of one turn,
    /// so HTTP requests and handshakes are served between slices. Thread: the service thread.
    public func drain(maxEntries: Int, maxBytes: Int) -> Drained {
        state.withLock { state in
            let overflowed = state.overflowed
            state.overflowed = false
            let streamReset = state.streamReset
            state.streamReset = false
            let replies = state.replies
            state.replies.removeAll(keepingCapacity: true)
            var bytes = 0
            var taken = 0
            var end = state.head
            while end < state.ordered.count {
                if case .event(let event) = state.ordered[end] {
                    guard taken == 0 || (taken < maxEntries && bytes + event.json.count <= maxBytes) else { break }
                    bytes += event.json.count
                    taken += 1
                }
                end += 1
            }
            let ordered = Array(state.ordered[state.head..<end])
            state.events -= taken
            state.eventBytes -= bytes
            undelivered.wrappingSubtract(taken, ordering: .relaxed)
            state.head = end
            if state.head == state.ordered.count {
                state.ordered.removeAll(keepingCapacity: state.ordered.capacity <= 1 << 16)
                state.head = 0
            } else if state.head > 4096 {
                // Compact now and then, so the array does not grow for ever under a steady backlog.
                state.ordered.removeFirst(state.head)
                state.head = 0
            }
            return Drained(
                overflowed: overflowed, streamReset: streamReset, replies: replies, ordered: ordered,
                more: state.head < state.ordered.count,
                stopRequested: state.stopRequested)
        }
    }

    /// Installs (or, before the context is destroyed, removes) what wakes the service thread, and
    /// wakes it at once if something is already waiting. Thread: the service thread.
    public func setWaker(_ waker: (@Sendable () -> Void)?) {
        state.withLock { state in
            state.waker = waker
            if !state.isEmpty || state.stopRequested { waker?() }
        }
    }
}
