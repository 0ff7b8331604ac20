import CLibWebSockets
import HeraldEngine
import Synchronization

/// Where the dispatcher leaves events for the service thread, and how it wakes that thread.
///
/// Threads: `push` and `requestStop` run on the dispatcher queue or any other thread; `drain` and
/// `setContext` on the service thread. One mutex guards the events and the context pointer, so
/// `lws_cancel_service` is never called on a context that is being destroyed (the only lws call
/// made off the service thread).
final class EventInbox: Sendable {
    private struct State {
        /// Queued events are `events[head...]`; a slice is taken by moving `head`, not by copying.
        var events: [SequencedEvent] = []
        var head = 0
        var queued: Int { events.count - head }
        var context: ContextPointer?
        var stopRequested = false
        /// Set when events were dropped because the service thread fell this far behind.
        var overflowed = false
    }

    private let state = Protected(State())
    /// Events held at most before the inbox gives up on them and every client is resynced instead:
    /// memory stays bounded even if the service thread cannot keep up with the dispatcher.
    let capacity: Int
    /// The engine's count of undelivered events, kept in step here (atomics, no lock).
    let backlog: BacklogGauge

    init(capacity: Int = 65_536, backlog: BacklogGauge = BacklogGauge()) {
        self.capacity = capacity
        self.backlog = backlog
    }

    /// Queues an event; wakes the service thread only when the inbox was empty, since one wake-up
    /// drains everything queued by then.
    func push(_ event: SequencedEvent) {
        state.withLock { state in
            if state.queued >= capacity {
                backlog.subtract(state.queued)
                state.events.removeAll()
                state.head = 0
                state.overflowed = true
            }
            state.events.append(event)
            backlog.add(1)
            if state.queued == 1, let context = state.context { lws_cancel_service(context.pointer) }
        }
    }

    func requestStop() {
        state.withLock { state in
            state.stopRequested = true
            if let context = state.context { lws_cancel_service(context.pointer) }
        }
    }

    /// Wakes the service thread without an event (shutdown's ticking, or the service thread itself
    /// when it left events for its next turn). Thread: any.
    func wake() {
        state.withLock { state in
            if let context = state.context { lws_cancel_service(context.pointer) }
        }
    }

    /// Takes queued events, oldest first, up to about `maxBytes` of encoded events (at least one).
    /// Taking a burst in slices lets the service loop write between slices, so a burst larger
    /// than a client's cap does not look like a slow client. Thread: the service thread.
    func drain(maxBytes: Int) -> (events: [SequencedEvent], more: Bool, stopRequested: Bool, overflowed: Bool) {
        state.withLock { state in
            let overflowed = state.overflowed
            state.overflowed = false
            var bytes = 0
            var end = state.head
            while end < state.events.count, end == state.head || bytes + state.events[end].json.count <= maxBytes {
                bytes += state.events[end].json.count
                end += 1
            }
            let events = Array(state.events[state.head..<end])
            backlog.subtract(events.count)
            state.head = end
            if state.head == state.events.count {
                state.events.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head > 4096 {
                // Compact now and then, so the array does not grow for ever under a steady backlog.
                state.events.removeFirst(state.head)
                state.head = 0
            }
            return (events, state.queued > 0, state.stopRequested, overflowed)
        }
    }

    var isStopRequested: Bool { state.withLock { $0.stopRequested } }

    /// Publishes (or, before destruction, withdraws) the context. Thread: the service thread.
    func setContext(_ context: OpaquePointer?) {
        state.withLock { state in
            state.context = context.map(ContextPointer.init)
            if context != nil, state.queued > 0 || state.stopRequested, let pointer = context { lws_cancel_service(pointer) }
        }
    }
}

/// An lws context pointer that may cross threads. @unchecked Sendable: it is only dereferenced by
/// `lws_cancel_service`, which libwebsockets documents as safe from any thread, under `EventInbox`'s lock.
struct ContextPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}
