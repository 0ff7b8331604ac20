import Foundation
import HeraldEngine

/// Events collected from any thread, in arrival order.
final class EventStore: Sendable {
    private let events = Locked<[SequencedEvent]>([])

    func append(_ event: SequencedEvent) { events.withLock { $0.append(event) } }

    var all: [SequencedEvent] { events.value }
}

/// A dispatcher subscriber that keeps every event it is handed, thread-safely, with the snapshot
/// `subscribe` returned.
final class EventRecorder: Sendable {
    let snapshot: Snapshot
    private let subscriberID: Int
    private let dispatcher: JobDispatcher
    private let store = EventStore()

    init(_ dispatcher: JobDispatcher) {
        self.dispatcher = dispatcher
        let store = self.store
        (snapshot, subscriberID) = dispatcher.subscribeWithSnapshot { event in store.append(event) }
    }

    func stop() { dispatcher.unsubscribe(subscriberID) }

    var events: [SequencedEvent] { store.all }

    /// Polls until `predicate` holds for the events so far; true when it did within `timeout`.
    @discardableResult
    func waitFor(timeout: Double = 10, _ predicate: ([SequencedEvent]) -> Bool) -> Bool {
        waitUntil(timeout: timeout) { predicate(events) }
    }

    // MARK: Views

    /// The job records of every `job` event about `id`, in order.
    func jobRecords(_ id: JobID) -> [JobRecord] {
        events.compactMap { $0.jobRecord?.id == id ? $0.jobRecord : nil }
    }

    func states(_ id: JobID) -> [JobState] { jobRecords(id).map(\.state) }

    func progress(_ id: JobID) -> [JobProgress] {
        events.compactMap { if case .progress(let job, let progress) = $0.event, job == id { return progress } else { return nil } }
    }

    /// The first terminal job record of `id`, once one arrived.
    func terminal(_ id: JobID) -> JobRecord? { jobRecords(id).first { $0.state.isTerminal } }

    /// Waits for `id` to reach a terminal state and returns its record (nil on timeout).
    func waitForTerminal(_ id: JobID, timeout: Double = 10) -> JobRecord? {
        waitFor(timeout: timeout) { events in events.contains { $0.jobRecord?.id == id && $0.jobRecord!.state.isTerminal } }
        return terminal(id)
    }

    /// Waits for a `job` event putting `id` in `state`.
    @discardableResult
    func waitForState(_ id: JobID, _ state: JobState, timeout: Double = 10) -> Bool {
        waitFor(timeout: timeout) { events in events.contains { $0.jobRecord?.id == id && $0.jobRecord!.state == state } }
    }
}

extension SequencedEvent {
    var jobRecord: JobRecord? { if case .job(let record) = event { return record } else { return nil } }
}
