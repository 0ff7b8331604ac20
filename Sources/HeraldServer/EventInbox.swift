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
        var events: [SequencedEvent] = []
        var context: ContextPointer?
        var stopRequested = false
    }

    private let state = Mutex(State())

    /// Queues an event; wakes the service thread only when the inbox was empty, since one wake-up
    /// drains everything queued by then.
    func push(_ event: SequencedEvent) {
        state.withLock { state in
            state.events.append(event)
            if state.events.count == 1, let context = state.context { lws_cancel_service(context.pointer) }
        }
    }

    func requestStop() {
        state.withLock { state in
            state.stopRequested = true
            if let context = state.context { lws_cancel_service(context.pointer) }
        }
    }

    /// Wakes the service thread without an event (shutdown's ticking). Thread: any.
    func wake() {
        state.withLock { state in
            if let context = state.context { lws_cancel_service(context.pointer) }
        }
    }

    /// Takes every queued event. Thread: the service thread.
    func drain() -> (events: [SequencedEvent], stopRequested: Bool) {
        state.withLock { state in
            let events = state.events
            state.events.removeAll(keepingCapacity: true)
            return (events, state.stopRequested)
        }
    }

    var isStopRequested: Bool { state.withLock { $0.stopRequested } }

    /// Publishes (or, before destruction, withdraws) the context. Thread: the service thread.
    func setContext(_ context: OpaquePointer?) {
        state.withLock { state in
            state.context = context.map(ContextPointer.init)
            if context != nil, !state.events.isEmpty || state.stopRequested, let pointer = context { lws_cancel_service(pointer) }
        }
    }
}

/// An lws context pointer that may cross threads. @unchecked Sendable: it is only dereferenced by
/// `lws_cancel_service`, which libwebsockets documents as safe from any thread, under `EventInbox`'s lock.
struct ContextPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}
