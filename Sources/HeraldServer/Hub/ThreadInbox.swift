import HeraldEngine
import Synchronization

/// One service thread's inbox when several share a `SharedFrameRing` (`StreamFanOut`): events are not
/// in it (they are in the ring, framed once for every thread), only that the ring moved on, the
/// answers the thread's hub waits for, stream resets and stop. Snapshots and resumes carry the
/// ring's end index at the moment they were posted: where the connections they serve go live.
///
/// Threads: `post`, `ringAdvanced`, `resetStream`, `requestStop` and `wake` on any thread; `drain`,
/// `noteTaken` and `setWaker` on the owning service thread. One mutex guards the lanes and the waker
/// (held for an append or a swap, never while anything waits), so the waker (`lws_cancel_service`)
/// is never called on a context being destroyed. The service thread wakes once for whatever piled up.
public final class ThreadInbox: Sendable {
    /// A snapshot or resume answer with the ring's end index when it was posted.
    public struct Stamped: Sendable {
        public var delivery: Delivery
        public var ringIndex: Int64
    }

    private struct State {
        var replies: [Delivery] = []
        var ordered: [Stamped] = []
        var ringAdvanced = false
        var streamReset = false
        var stopRequested = false
        var waker: (@Sendable () -> Void)?
        var isIdle: Bool { replies.isEmpty && ordered.isEmpty && !ringAdvanced && !streamReset }
    }

    /// A pthread mutex (`Protected`), which ThreadSanitizer sees, unlike `Synchronization.Mutex`'s futex.
    private let state = Protected(State())
    /// The ring's end index as this thread last took a view: how far its hub has read the stream.
    /// Written on the service thread, read anywhere (producer pacing); relaxed.
    private let takenEnd = Atomic<Int64>(0)
    /// Backlogged stream connections and all of them, as this thread's hub last counted.
    private let backlogged = Atomic<Int>(0)
    private let streams = Atomic<Int>(0)

    public init() {}

    /// What one turn of the service loop takes.
    public struct Drained: Sendable {
        public var replies: [Delivery]
        public var ordered: [Stamped]
        /// The ring has frames past the view the thread holds: take the newest.
        public var ringAdvanced: Bool
        /// The engine's stream restarted: every stream needs a fresh snapshot.
        public var streamReset: Bool
        public var stopRequested: Bool
    }

    private func update(_ body: (inout State) -> Void) {
        state.withLock { state in
            let wasIdle = state.isIdle
            body(&state)
            if wasIdle || state.stopRequested { state.waker?() }
        }
    }

    /// An answer that may overtake events (a reply, a file, a worker directive). Thread: any.
    public func post(reply: Delivery) { update { $0.replies.append(reply) } }

    /// A snapshot or resume answer, posted when the ring ended at `ringIndex`. Thread: any.
    public func post(ordered: Delivery, at ringIndex: Int64) {
        update { $0.ordered.append(Stamped(delivery: ordered, ringIndex: ringIndex)) }
    }

    /// The writer published frames. Thread: any.
    public func ringAdvanced() { update { $0.ringAdvanced = true } }

    /// The engine's stream restarted under a new epoch. Thread: any.
    public func resetStream() { update { $0.streamReset = true } }

    /// Asks the service thread to close every connection and stop. Thread: any.
    public func requestStop() { update { $0.stopRequested = true } }

    /// Wakes the service thread with nothing new (shutdown's ticking). Thread: any.
    public func wake() { state.withLock { $0.waker?() } }

    /// Takes everything. Thread: the owning service thread.
    public func drain() -> Drained {
        state.withLock { state in
            defer {
                state.replies.removeAll(keepingCapacity: true)
                state.ordered.removeAll(keepingCapacity: true)
                state.ringAdvanced = false
                state.streamReset = false
            }
            return Drained(
                replies: state.replies, ordered: state.ordered, ringAdvanced: state.ringAdvanced, streamReset: state.streamReset,
                stopRequested: state.stopRequested)
        }
    }

    /// Installs (or removes, before the context is destroyed) what wakes the service thread, and
    /// wakes it at once if something waits. Thread: the owning service thread.
    public func setWaker(_ waker: (@Sendable () -> Void)?) {
        state.withLock { state in
            state.waker = waker
            if !state.isIdle || state.stopRequested { waker?() }
        }
    }

    /// Records the end index of the view the thread took. Thread: the owning service thread.
    public func noteTaken(endIndex: Int64) { takenEnd.store(endIndex, ordering: .relaxed) }

    /// The end index of the view the thread last took. Thread: any; relaxed.
    public var taken: Int64 { takenEnd.load(ordering: .relaxed) }

    /// Records the hub's backlog count. Thread: the owning service thread.
    public func noteBacklog(backlogged count: Int, of total: Int) {
        backlogged.store(count, ordering: .relaxed)
        streams.store(total, ordering: .relaxed)
    }

    /// The hub's backlog count as last noted. Thread: any; relaxed.
    public var backlog: (backlogged: Int, total: Int) {
        (backlogged.load(ordering: .relaxed), streams.load(ordering: .relaxed))
    }
}
