import HeraldSupport

/// Events for one client connection, from its service thread to whoever reads them.
/// Thread: `post` on the client's service thread; `next` on any reader thread. `condition` guards all.
final class ClientMailbox: @unchecked Sendable {
    // @unchecked Sendable: `events` is only touched while holding `condition`.
    private let condition = MonotonicCondition()
    private var events: [ClientEvent] = []
    private var head = 0

    func post(_ event: ClientEvent) {
        condition.lock()
        events.append(event)
        condition.broadcast()
        condition.unlock()
    }

    /// The next event, waiting up to `timeout` seconds; nil when none came.
    func next(timeout: Double) -> ClientEvent? {
        let deadline = MonotonicCondition.deadline(after: timeout)
        condition.lock()
        defer { condition.unlock() }
        while head == events.count {
            if !condition.wait(until: deadline) { return nil }
        }
        let event = events[head]
        head += 1
        if head > 4096 {
            events.removeFirst(head)
            head = 0
        }
        return event
    }
}
