import Foundation
import HeraldEngine
import Synchronization
import XCTest

/// The real runners behind a real dispatcher, over a fresh temporary folder holding `root` (the
/// search root), `outside` (a sibling the search must never reach) and `data` (the data directory).
/// Every event is recorded. Thread: any; the recorded events sit behind a mutex.
final class RunnerFixture: Sendable {
    let folder: URL
    let root: URL
    let outside: URL
    let data: URL
    let dispatcher: JobDispatcher
    private let recorded = RecordedEvents()

    init(
        runners: [any JobRunner] = JobCatalog.standardRunners(), maxSearchResults: Int = 1000,
        maxSortCount: Int = 50_000_000, dataInsideRoot: Bool = false,
        newsSource: NewsSource = NewsSource(probability: 0, seed: 1),
        configuration: EngineConfiguration = EngineConfiguration(workers: 2, enableTicker: true)
    ) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-jobs-\(UUID().uuidString)")
        root = folder.appendingPathComponent("root")
        outside = folder.appendingPathComponent("outside")
        data = dataInsideRoot ? root.appendingPathComponent("herald-data") : folder.appendingPathComponent("data")
        for url in [root, outside, data] { try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        let environment = JobEnvironment(
            searchRoot: root, dataDirectory: data, newsSource: newsSource, maxSearchResults: maxSearchResults,
            maxSortCount: maxSortCount)
        dispatcher = JobDispatcher(
            configuration: configuration, environment: environment, runners: runners)
        let recorded = self.recorded
        _ = dispatcher.subscribe { event in recorded.append(event) }
    }

    func close() {
        dispatcher.shutdown(grace: 0)
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: Files

    /// Writes `text` at `path` under the root, making folders; returns its size in bytes.
    @discardableResult
    func write(_ path: String, _ text: String, in base: URL? = nil) -> Int {
        write(path, Data(text.utf8), in: base)
    }

    @discardableResult
    func write(_ path: String, _ data: Data, in base: URL? = nil) -> Int {
        let url = (base ?? root).appendingPathComponent(path)
        try! FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! data.write(to: url)
        return data.count
    }

    func symlink(_ path: String, to target: URL) {
        try! FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent(path), withDestinationURL: target)
    }

    // MARK: Jobs

    func start(_ kind: JobKind, _ params: JSONObject) -> Result<JobRecord, EngineError> {
        dispatcher.start(StartRequest(kind: kind.rawValue, params: params))
    }

    /// The error a start is refused with, or nil if it was accepted.
    func refusal(_ kind: JobKind, _ params: JSONObject) -> EngineError? {
        if case .failure(let error) = start(kind, params) { return error }
        return nil
    }

    /// Starts a job that must be accepted and waits for it to end.
    func run(_ kind: JobKind, _ params: JSONObject, file: StaticString = #filePath, line: UInt = #line) throws -> JobRecord {
        let record = try start(kind, params).get()
        guard let done = waitForEnd(record.id) else {
            XCTFail("\(kind.rawValue) did not end in time", file: file, line: line)
            throw EngineError(.internalError, "timeout")
        }
        return done
    }

    /// Polls until the job is terminal (the state is set and its event emitted in one dispatcher step).
    func waitForEnd(_ id: JobID, timeout: Double = 20) -> JobRecord? {
        var record: JobRecord?
        _ = pollUntil(timeout: timeout) {
            record = dispatcher.job(id.rawValue)
            return record?.state.isTerminal == true
        }
        return record?.state.isTerminal == true ? record : nil
    }

    // MARK: Events

    var events: [SequencedEvent] { recorded.all }

    func progress(of id: JobID) -> [JobProgress] {
        events.compactMap { if case .progress(let job, let value) = $0.event, job == id { return value } else { return nil } }
    }

    func results(of id: JobID) -> [JSONValue] {
        events.flatMap { if case .results(let job, let items) = $0.event, job == id { return items } else { return [] } }
    }

    /// The events about `id` (any kind) that came after its terminal `job` event.
    func eventsAfterEnd(of id: JobID) -> [SequencedEvent] {
        let all = events
        guard let end = all.firstIndex(where: { if case .job(let record) = $0.event { return record.id == id && record.state.isTerminal } else { return false } }) else { return [] }
        return all[(end + 1)...].filter { event in
            switch event.event {
            case .job(let record): return record.id == id
            case .progress(let job, _), .results(let job, _): return job == id
            case .news: return false
            }
        }
    }

    var newsEvents: [(revision: Int64, items: [NewsItem])] {
        events.compactMap { if case .news(let revision, let items) = $0.event { return (revision, items) } else { return nil } }
    }
}

/// Events appended by the dispatcher queue, read by the test thread.
final class RecordedEvents: Sendable {
    private let events = Protected<[SequencedEvent]>([])
    func append(_ event: SequencedEvent) { events.withLock { $0.append(event) } }
    var all: [SequencedEvent] { events.withLock { $0 } }
}

/// Polls `condition` every millisecond until it holds or `timeout` seconds pass.
func pollUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        usleep(1_000)
    }
    return true
}

extension XCTestCase {
    /// A fixture removed (and its dispatcher shut down) when the test ends.
    func makeRunnerFixture(
        runners: [any JobRunner] = JobCatalog.standardRunners(), maxSearchResults: Int = 1000,
        maxSortCount: Int = 50_000_000, dataInsideRoot: Bool = false,
        newsSource: NewsSource = NewsSource(probability: 0, seed: 1),
        configuration: EngineConfiguration = EngineConfiguration(workers: 2, enableTicker: true)
    ) -> RunnerFixture {
        let fixture = RunnerFixture(
            runners: runners, maxSearchResults: maxSearchResults, maxSortCount: maxSortCount,
            dataInsideRoot: dataInsideRoot, newsSource: newsSource, configuration: configuration)
        addTeardownBlock { fixture.close() }
        return fixture
    }
}
