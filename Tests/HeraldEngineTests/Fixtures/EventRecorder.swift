import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// A dispatcher subscriber that keeps every event it is handed, thread-safely, with the snapshot
/// `subscribe` returned: the one event recorder of the engine tests. `DispatcherFixture` makes one
/// before any job; a test can add more that join later (a client connecting mid-stream).
///
/// Every wait here polls with a deadline and, on timeout, fails the test saying what it saw.
final class EventRecorder: Sendable {
    let snapshot: Snapshot
    private let subscriberID: Int
    private let dispatcher: JobDispatcher
    private let store = Locked<[SequencedEvent]>([])

    init(_ dispatcher: JobDispatcher) {
        self.dispatcher = dispatcher
        let store = self.store
        (snapshot, subscriberID) = dispatcher.subscribeWithSnapshot { events in store.withLock { $0.append(contentsOf: events) } }
    }

    func stop() { dispatcher.unsubscribe(subscriberID) }

    var events: [SequencedEvent] { store.value }

    // MARK: Waiting

    /// Waits until `predicate` holds for the events so far; true when it did within `timeout`.
    /// On timeout the test fails with `what` and the events seen (`seen`, or the last few events).
    @discardableResult
    func waitFor(
        _ what: String, timeout: Double = 20, seen: (() -> String)? = nil, file: StaticString = #filePath,
        line: UInt = #line, _ predicate: ([SequencedEvent]) -> Bool
    ) -> Bool {
        waitUntil(what, timeout: timeout, seen: { seen?() ?? self.describeLast() }, file: file, line: line) { predicate(events) }
    }

    /// Polls until `predicate` holds, without failing on timeout: for pacing only (see `poll`).
    func poll(timeout: Double, _ predicate: ([SequencedEvent]) -> Bool) -> Bool {
        HeraldTestSupport.poll(timeout: timeout) { predicate(events) }
    }

    /// Waits for `id` to reach a terminal state and returns its record; nil (and a failure naming
    /// the job's states so far) on timeout.
    @discardableResult
    func waitForTerminal(_ id: JobID, timeout: Double = 20, file: StaticString = #filePath, line: UInt = #line) -> JobRecord? {
        waitFor("\(id) ends", timeout: timeout, seen: { self.describe(id) }, file: file, line: line) { events in
            events.contains { $0.jobRecord.map { $0.id == id && $0.state.isTerminal } ?? false }
        }
        return terminal(of: id)
    }

    /// Waits for a `job` event putting `id` in `state`.
    @discardableResult
    func waitForState(
        _ id: JobID, _ state: JobState, timeout: Double = 20, file: StaticString = #filePath, line: UInt = #line
    ) -> Bool {
        waitFor("\(id) becomes \(state.rawValue)", timeout: timeout, seen: { self.describe(id) }, file: file, line: line) { events in
            events.contains { $0.jobRecord.map { $0.id == id && $0.state == state } ?? false }
        }
    }

    // MARK: Views

    /// The job records of every `job` event about `id`, in order.
    func jobRecords(of id: JobID) -> [JobRecord] {
        events.compactMap { $0.jobRecord?.id == id ? $0.jobRecord : nil }
    }

    func states(of id: JobID) -> [JobState] { jobRecords(of: id).map(\.state) }

    func progress(of id: JobID) -> [JobProgress] {
        events.compactMap { if case .progress(let job, let progress) = $0.event, job == id { return progress } else { return nil } }
    }

    /// Every result item streamed for `id`, in order.
    func results(of id: JobID) -> [JSONValue] {
        events.flatMap { if case .results(let job, let items) = $0.event, job == id { return items } else { return [] } }
    }

    /// The first terminal job record of `id`, once one arrived.
    func terminal(of id: JobID) -> JobRecord? { jobRecords(of: id).first { $0.state.isTerminal } }

    /// The events about `id` (any kind) that came after its terminal `job` event.
    func eventsAfterEnd(of id: JobID) -> [SequencedEvent] {
        let all = events
        guard let end = all.firstIndex(where: { $0.jobRecord.map { $0.id == id && $0.state.isTerminal } ?? false }) else { return [] }
        return all[(end + 1)...].filter { event in
            switch event.event {
            case .job(let record): return record.id == id
            case .progress(let job, _), .results(let job, _), .log(let job, _, _, _): return job == id
            case .news, .workers: return false
            }
        }
    }

    var newsEvents: [(revision: Int64, items: [NewsItem])] {
        events.compactMap { if case .news(let revision, let items) = $0.event { return (revision, items) } else { return nil } }
    }

    // MARK: What was seen, for failure messages

    /// The job's states so far and its latest progress.
    func describe(_ id: JobID) -> String {
        let progress = progress(of: id)
        let latest = progress.last.map { ", the last \($0.completed)/\($0.total)" } ?? ""
        return "states of \(id) so far \(states(of: id).map(\.rawValue)), \(progress.count) progress events\(latest); \(describeLast())"
    }

    /// How many events arrived, and the last few in brief.
    func describeLast(_ count: Int = 5) -> String {
        let all = events
        return "\(all.count) events after seq \(snapshot.seq), the last: \(all.suffix(count).map(\.brief).joined(separator: ", "))"
    }
}

extension SequencedEvent {
    var jobRecord: JobRecord? { if case .job(let record) = event { return record } else { return nil } }

    /// One short line for a failure message: `#12 job j-… running`, `#13 progress j-… 5/10`.
    var brief: String {
        switch event {
        case .job(let record): return "#\(seq) job \(record.id) \(record.state.rawValue)"
        case .progress(let job, let progress): return "#\(seq) progress \(job) \(progress.completed)/\(progress.total)"
        case .results(let job, let items): return "#\(seq) results \(job) ×\(items.count)"
        case .news(let revision, let items): return "#\(seq) news \(revision) ×\(items.count)"
        case .log(let job, let lines, _, _): return "#\(seq) log \(job) ×\(lines.count)"
        case .workers(let workers): return "#\(seq) workers ×\(workers.count)"
        }
    }
}
