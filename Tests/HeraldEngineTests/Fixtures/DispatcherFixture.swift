import Foundation
import HeraldEngine
import HeraldSupport
import HeraldTestSupport
import XCTest

/// The engine tests' one fixture: a dispatcher over a fresh temporary folder, with an
/// `EventRecorder` subscribed before the first job, so every event is kept.
///
/// The folder holds `root` (the search root), `outside` (a sibling the search must never reach) and
/// `data` (the data directory; `root/herald-data` with `dataInsideRoot`). Made by `makeFixture`,
/// which shuts the dispatcher down and removes the folder when the test ends.
/// Thread: any (the dispatcher and the recorder are thread-safe; the rest is constant).
final class DispatcherFixture: Sendable {
    let folder: URL
    let root: URL
    let outside: URL
    let data: URL
    let dispatcher: JobDispatcher
    let recorder: EventRecorder

    fileprivate init(
        folder: URL, configuration: EngineConfiguration, runners: [any JobRunner], maxSearchResults: Int, maxSortCount: Int,
        sortCacheBytes: Int, dataInsideRoot: Bool, newsSource: NewsSource, history: HistoryStore?, clock: any DispatcherClock,
        wallClock: @escaping @Sendable () -> Int64
    ) {
        self.folder = folder
        root = folder.appendingPathComponent("root")
        outside = folder.appendingPathComponent("outside")
        data = dataInsideRoot ? root.appendingPathComponent("herald-data") : folder.appendingPathComponent("data")
        for url in [root, outside, data] { try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        let environment = JobEnvironment(
            searchRoot: root, dataDirectory: data, newsSource: newsSource, maxSearchResults: maxSearchResults,
            maxSortCount: maxSortCount, sortCacheBytes: sortCacheBytes)
        dispatcher = JobDispatcher(
            configuration: configuration, environment: environment, runners: runners, history: history, clock: clock,
            wallClock: wallClock)
        recorder = EventRecorder(dispatcher)
    }

    // MARK: Files

    /// Writes `text` at `path` under the root (or `base`), making folders; returns its size in bytes.
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
        try! FileManager.default.createSymbolicLink(at: root.appendingPathComponent(path), withDestinationURL: target)
    }

    // MARK: Jobs

    func start(_ kind: JobKind, _ params: JSONObject) -> Result<JobRecord, EngineError> {
        dispatcher.start(StartRequest(kind: kind.rawValue, params: params))
    }

    /// Starts a job of a `ScriptedRunner` that must be accepted; its behaviour is spelled by `tag`.
    func startJob(
        _ kind: JobKind, tag: String = "", after: [JobID] = [], requestId: String? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> JobRecord {
        let request = StartRequest(kind: kind.rawValue, params: ["tag": .string(tag)], after: after.map(\.rawValue), requestId: requestId)
        switch dispatcher.start(request) {
        case .success(let record): return record
        case .failure(let error):
            XCTFail("start \(kind.rawValue) \(tag) refused: \(error)", file: file, line: line)
            throw error
        }
    }

    /// The error a start is refused with, or nil if it was accepted.
    func refusal(_ kind: JobKind, _ params: JSONObject) -> EngineError? {
        if case .failure(let error) = start(kind, params) { return error }
        return nil
    }

    /// Starts a job that must be accepted and waits for its terminal record.
    func run(
        _ kind: JobKind, _ params: JSONObject, timeout: Double = 20, file: StaticString = #filePath, line: UInt = #line
    ) throws -> JobRecord {
        let record = try start(kind, params).get()
        guard let done = recorder.waitForTerminal(record.id, timeout: timeout, file: file, line: line) else {
            throw EngineError(.internalError, "\(kind.rawValue) \(record.id) did not end in time")
        }
        return done
    }
}

extension XCTestCase {
    /// A fixture whose dispatcher is shut down (running jobs cancelled) and whose folder is removed
    /// when the test ends. `folder` lets two dispatchers in turn share one folder (history reloads).
    func makeFixture(
        _ configuration: EngineConfiguration = testConfiguration(), runners: [any JobRunner] = JobCatalog.standardRunners(),
        maxSearchResults: Int = 1000, maxSortCount: Int = 50_000_000, sortCacheBytes: Int = SortCache.defaultLimitBytes,
        dataInsideRoot: Bool = false,
        newsSource: NewsSource = NewsSource(probability: 0, seed: 1), folder: TemporaryDirectory? = nil,
        history: HistoryStore? = nil, clock: any DispatcherClock = SystemClock(),
        wallClock: @escaping @Sendable () -> Int64 = WallClock.millis
    ) -> DispatcherFixture {
        let folder = folder ?? makeTemporaryDirectory()
        let fixture = DispatcherFixture(
            folder: folder.url, configuration: configuration, runners: runners, maxSearchResults: maxSearchResults,
            maxSortCount: maxSortCount, sortCacheBytes: sortCacheBytes, dataInsideRoot: dataInsideRoot, newsSource: newsSource,
            history: history, clock: clock, wallClock: wallClock)
        addTeardownBlock { fixture.dispatcher.shutdown(grace: 0) }
        return fixture
    }
}

/// Engine settings for tests: limits only where a test asks for them.
func testConfiguration(
    workers: Int = 4, kindLimits: [JobKind: EngineConfiguration.KindLimit] = [:], progressEventsPerSecond: Double = 20,
    eventLogSize: Int = 10_000, enableTicker: Bool = false, retainedFinishedJobs: Int = 500
) -> EngineConfiguration {
    EngineConfiguration(
        workers: workers, kindLimits: kindLimits, progressEventsPerSecond: progressEventsPerSecond,
        eventLogSize: eventLogSize, newsInterval: nil, enableTicker: enableTicker, retainedFinishedJobs: retainedFinishedJobs)
}

/// The configuration the standard runners' tests use: the server's per-kind limits, two workers,
/// and the benchmark ticker enabled.
func runnerConfiguration(workers: Int = 2) -> EngineConfiguration {
    EngineConfiguration(workers: workers, enableTicker: true)
}
