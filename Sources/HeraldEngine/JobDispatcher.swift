import Dispatch
import Foundation
import Synchronization

/// The one dispatcher: a serial queue that owns all job state and numbers every event.
///
/// Threads: every stored `var` below is read and written only on `queue`. Public methods may be
/// called from any thread except `queue` itself (they hop onto it with `sync`); worker threads reach
/// it only through `async` hops (`JobEventSink`). Subscribers are called on `queue`, in seq order.
///
/// This is the seam for scale-out: a subscriber sees the whole ordered stream, so a broker publisher
/// is one more subscriber, and a node fed by a broker would replace this type behind `EventSource`.
public final class JobDispatcher: @unchecked Sendable {
    // @unchecked Sendable: mutable state is confined to `queue` (see above); the rest is immutable.
    public let epoch: String
    public let configuration: EngineConfiguration
    public let environment: JobEnvironment
    let queue = DispatchQueue(label: "herald.dispatcher", qos: .userInitiated)
    let runners: [JobKind: any JobRunner]
    let history: HistoryStore?
    let clock = ContinuousClock()
    let startInstant: ContinuousClock.Instant
    /// Uncoalesced progress hops queued but not yet run (benchmark `ticker` back-pressure). Thread: any.
    let uncoalescedInFlight = Atomic<Int>(0)
    /// Events a subscriber (the server) has taken but not yet handed to its clients; uncoalesced
    /// progress waits while it is high, so a benchmark ticker is paced by delivery. Thread: any.
    public let deliveryBacklog = BacklogGauge()

    // Confined to `queue`:
    var seq: Int64 = 0
    var jobs: [JobID: JobRecord] = [:]
    /// Job ids in creation order.
    var order: [JobID] = []
    var news: NewsFeed
    var log: EventLog
    var subscribers: [Int: @Sendable (SequencedEvent) -> Void] = [:]
    var nextSubscriberID = 0
    var running: [JobID: RunningJob] = [:]
    var cancelRequested: Set<JobID> = []
    var requestIds: [String: JobID] = [:]
    var requestIdOrder: [String] = []
    var streamedResults: [JobID: [JSONValue]] = [:]
    var progressTimer: DispatchSourceTimer?
    var newsTimer: DispatchSourceTimer?
    var isShuttingDown = false
    var idleWaiter: DispatchSemaphore?
    var statistics = EngineStatistics()

    /// A job on a worker: its context and the coalescer that paces its progress events.
    struct RunningJob {
        let context: JobContext
        var coalescer: ProgressCoalescer
        let started: ContinuousClock.Instant
    }

    public init(
        configuration: EngineConfiguration = EngineConfiguration(), environment: JobEnvironment,
        runners: [any JobRunner], history: HistoryStore? = nil, newsCapacity: Int = 200
    ) {
        self.epoch = Self.makeEpoch()
        self.configuration = configuration
        self.environment = environment
        self.runners = Dictionary(runners.map { ($0.kind, $0) }, uniquingKeysWith: { _, last in last })
        self.history = history
        self.news = NewsFeed(capacity: newsCapacity)
        self.log = EventLog(capacity: max(1, configuration.eventLogSize))
        self.startInstant = clock.now
        if let history {
            for record in history.load() {
                jobs[record.id] = record
                order.append(record.id)
            }
        }
        if let interval = configuration.newsInterval, interval > 0 {
            queue.async { self.startNewsTimer(every: interval) }
        }
    }

    /// 16 random hex characters: differs on every start, so clients know a resume cannot work.
    private static func makeEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%016llx", generator.next() as UInt64)
    }

    static func nowMillis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
    static func nowMicros() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    /// Seconds since this dispatcher was made, on a monotonic clock. Thread: any.
    func monotonicSeconds() -> Double {
        let elapsed = clock.now - startInstant
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    // MARK: - Public API (any thread but `queue`)

    /// Starts a job, or returns the job an earlier request with the same `requestId` started.
    public func start(_ request: StartRequest) -> Result<JobRecord, EngineError> {
        queue.sync { startOnQueue(request) }
    }

    /// Cancels a queued, waiting or running job. A running job ends `cancelled` once it notices.
    public func cancel(_ id: String) -> Result<JobRecord, EngineError> {
        queue.sync { cancelOnQueue(id) }
    }

    /// Registers `handler` for every event after the returned snapshot, atomically: nothing is
    /// missed and nothing repeated. `handler` runs on the dispatcher queue and must return quickly.
    public func subscribe(_ handler: @escaping @Sendable (SequencedEvent) -> Void) -> (Snapshot, Int) {
        queue.sync {
            let id = nextSubscriberID
            nextSubscriberID += 1
            subscribers[id] = handler
            return (makeSnapshot(), id)
        }
    }

    public func unsubscribe(_ id: Int) {
        queue.sync { _ = subscribers.removeValue(forKey: id) }
    }

    public func snapshot() -> Snapshot { queue.sync { makeSnapshot() } }

    /// The events after `since` in `epoch`, or a snapshot when the log no longer has them.
    public func resume(epoch: String, since: Int64) -> ResumeAnswer {
        queue.sync {
            if epoch == self.epoch, let events = log.events(after: since, currentSeq: seq) {
                return .events(events)
            }
            return .snapshot(makeSnapshot())
        }
    }

    public func job(_ id: String) -> JobRecord? { queue.sync { jobs[JobID(id)] } }

    public func allJobs() -> [JobRecord] { queue.sync { order.compactMap { jobs[$0] } } }

    public func newsFeed() -> NewsFeed { queue.sync { news } }

    public func currentStatistics() -> EngineStatistics {
        queue.sync {
            var copy = statistics
            copy.jobsRunning = running.count
            copy.seq = seq
            for job in running.values { copy.progressCoalesced += job.coalescer.heldBack }
            return copy
        }
    }

    /// A page of a job's results: sorted values for `sort`, streamed matches for `search`.
    public func page(job id: String, offset: Int, limit: Int) -> Result<ResultPage, EngineError> {
        guard offset >= 0 else { return .failure(.badRequest(field: "offset", "must be 0 or more")) }
        guard (1...10_000).contains(limit) else { return .failure(.badRequest(field: "limit", "must be from 1 to 10000")) }
        let found: (JobRecord, [JSONValue]?)? = queue.sync {
            jobs[JobID(id)].map { ($0, streamedResults[$0.id]) }
        }
        guard let (record, streamed) = found else { return .failure(EngineError(.notFound, "no job \(id)")) }
        do {
            if let runner = runners[record.kind],
                let page = try runner.page(of: record, offset: offset, limit: limit, environment: environment)
            {
                return .success(page)
            }
        } catch {
            return .failure(error)
        }
        let items = streamed ?? []
        let slice = offset < items.count ? Array(items[offset..<min(items.count, offset + limit)]) : []
        return .success(ResultPage(offset: offset, total: items.count, values: slice))
    }

    /// Stops taking jobs, waits up to `grace` seconds for running jobs, cancels what is left, and
    /// writes history. Thread: any but `queue`; blocks the caller.
    public func shutdown(grace: Double) {
        let waiter = DispatchSemaphore(value: 0)
        let mustWait: Bool = queue.sync {
            // A second, concurrent shutdown only waits for the first one's jobs to end.
            if isShuttingDown, idleWaiter != nil { return false }
            isShuttingDown = true
            newsTimer?.cancel()
            newsTimer = nil
            for id in order where jobs[id].map({ $0.state == .queued || $0.state == .waiting }) == true {
                _ = finishWithoutRunning(id, state: .cancelled, reason: "the server shut down before it ran")
            }
            guard !running.isEmpty else { return false }
            idleWaiter = waiter
            return true
        }
        if mustWait, waiter.wait(timeout: .now() + max(0, grace)) == .timedOut {
            queue.sync { for (id, job) in running { cancelRequested.insert(id); job.context.requestCancel() } }
            _ = waiter.wait(timeout: .now() + 30)
        }
        history?.flush()
    }
}
