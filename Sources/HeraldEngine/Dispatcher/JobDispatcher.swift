import Dispatch
import Foundation
import Synchronization
import HeraldSupport

/// The one dispatcher: a serial queue that owns all job state and numbers every event.
///
/// Threads: every stored `var` below is read and written only on `queue`. The server talks to it
/// only by messages (`JobEngine`: `send`, `subscribe`, `unsubscribe`), which hop onto `queue` with
/// `async` and never wait. The blocking conveniences further down (`start`, `cancel`, `snapshot`, …)
/// hop with `sync`: they are for tests and tools, never for a thread that must not wait (the
/// server's service thread). Worker threads reach the queue only through bounded `async` hops
/// (`JobEventSink`). Subscribers and replies run on `queue`, in seq order.
///
/// This is the seam for scale-out: a subscriber sees the whole ordered stream, so a broker publisher
/// is one more subscriber, and a node fed by a broker would replace this type behind `JobEngine`.
public final class JobDispatcher: JobEngine, @unchecked Sendable {
    // @unchecked Sendable: mutable state is confined to `queue` (see above); the rest is immutable.
    public let epoch: String
    public let configuration: EngineConfiguration
    public let environment: JobEnvironment
    let queue = DispatchQueue(label: "herald.dispatcher", qos: .userInitiated)
    let runners: [JobKind: any JobRunner]
    let history: HistoryStore?
    /// Time for leases, retries and pacing, and the timers. Thread: any.
    let clock: any DispatcherClock
    /// Uncoalesced progress hops queued but not yet run (benchmark `ticker` back-pressure). Thread: any.
    let uncoalescedInFlight = Atomic<Int>(0)
    /// Bounds the result and news hops that workers have queued but the dispatcher has not run yet:
    /// a job that streams faster than the dispatcher numbers its events waits in `emitResults`
    /// instead of growing the queue without end. Thread: any.
    let hops = HopGate(limit: 1024)
    /// Subscription ids, handed out without a hop. Thread: any.
    let nextSubscriberIDs = Atomic<Int>(0)

    // Confined to `queue`:
    /// The jobs held, in creation order, their starts' request ids and their kept results.
    var table: JobTable
    /// The numbered events: handed to subscribers a batch at a time by `flushOutgoing`, which
    /// `emit` schedules when a batch begins and every request runs first.
    var stream: EventStream
    var news: NewsFeed
    /// Ticker progress waiting for its one hop onto `queue` (`uncoalescedProgress`). Thread: any.
    let pendingTicks = Protected<[(JobID, JobProgress)]>([])
    var running: [JobID: RunningJob] = [:]
    var cancelRequested: Set<JobID> = []
    var progressTimer: (any ScheduledTimer)?
    var newsTimer: (any ScheduledTimer)?
    /// What a cluster node set (`JobDispatcher+Cluster`); empty on a single server.
    var cluster = ClusterHooks()
    var isShuttingDown = false
    /// Callers of `shutdown` waiting for the last running job to end; all are signalled together.
    var idleWaiters: [DispatchSemaphore] = []
    var statistics = EngineStatistics()
    /// Command jobs' logs between a run and their file.
    var keptLogs = KeptLogs()
    /// Where ended command jobs' logs live (the data folder's `logs/`). Thread: any.
    let logFiles: LogFiles
    /// When a retrying job may run again (`clock` time) and the timer that pumps then; absent for
    /// every other job.
    var retries: [JobID: (due: Double, timer: any ScheduledTimer)] = [:]
    /// Attached remote workers, the attempts they hold and how to reach them.
    var remote = RemoteWorkers()
    /// Checks workers' leases while any is attached.
    var leaseTimer: (any ScheduledTimer)?

    /// A job on a worker: its context and the coalescer that paces its progress events.
    struct RunningJob {
        let context: JobContext
        var coalescer: ProgressCoalescer
        /// `clock` time.
        let started: Double
    }

    public init(
        configuration: EngineConfiguration = EngineConfiguration(), environment: JobEnvironment,
        runners: [any JobRunner], history: HistoryStore? = nil, newsCapacity: Int = 200, clock: any DispatcherClock = SystemClock()
    ) {
        self.epoch = Self.makeEpoch()
        self.configuration = configuration
        self.environment = environment
        self.runners = Dictionary(runners.map { ($0.kind, $0) }, uniquingKeysWith: { _, last in last })
        self.history = history
        self.news = NewsFeed(capacity: newsCapacity)
        self.table = JobTable(requestIdsKept: configuration.requestIdsKept)
        self.stream = EventStream(log: EventLog(capacity: max(1, configuration.eventLogSize), maxBytes: configuration.eventLogBytes))
        self.clock = clock
        self.logFiles = LogFiles(folder: environment.dataDirectory.appendingPathComponent("logs"))
        if let history {
            for record in history.load() {
                table.insert(record)
            }
        }
        if let interval = configuration.newsInterval, interval > 0 {
            queue.async { self.startNewsTimer(every: interval) }
        }
    }

    /// 16 random hex characters: differs on every start, so clients know a resume cannot work.
    public static func makeEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%016llx", generator.next() as UInt64)
    }

    // MARK: - Messages (JobEngine): any thread, never blocks

    public func send(_ request: EngineRequest, reply: @escaping @Sendable (EngineReply) -> Void) {
        if case .page(let job, let offset, let limit) = request {
            readPage(job: job, offset: offset, limit: limit) { reply(.page($0)) }
            return
        }
        if case .history(let query) = request {
            readHistory(query) { reply(.history($0)) }
            return
        }
        if case .job(let id) = request {
            lookUpJob(id) { reply(.job($0)) }
            return
        }
        if case .metrics = request {
            queue.async { [self] in
                guard case .statistics(let statistics) = answer(.statistics) else { return }
                // `mallinfo2` takes every arena's lock: read on a global queue, not on `queue`.
                DispatchQueue.global(qos: .utility).async {
                    var withHeap = statistics
                    withHeap.heap = HeapFigures.read()
                    reply(.statistics(withHeap))
                }
            }
            return
        }
        queue.async { [self] in
            // Every event before the request reaches subscribers before its reply (a snapshot at
            // seq S follows every event up to S). Events the request causes (a start's `queued`,
            // `running`) reach them after the reply, so a client reads `accepted` before the job's
            // events, as it always has.
            flushOutgoing()
            stream.hold()
            let answered = answer(request)
            reply(answered)
            stream.release()
            flushOutgoing()
        }
    }

    public func subscribe(_ handler: @escaping @Sendable ([SequencedEvent]) -> Void) -> Int {
        let id = nextSubscriberIDs.wrappingAdd(1, ordering: .relaxed).oldValue
        queue.async { [self] in
            // Events numbered before the subscription are not this subscriber's.
            flushOutgoing()
            stream.subscribe(id, handler)
        }
        return id
    }

    /// Hands the events numbered so far to every subscriber, as one batch. Thread: `queue`.
    func flushOutgoing() {
        guard let (batch, handlers) = stream.takeBatch() else { return }
        for handler in handlers { handler(batch) }
    }

    public func unsubscribe(_ id: Int) {
        queue.async { [self] in stream.unsubscribe(id) }
    }

    /// Answers every request but `.page` and `.history` (which read files off the queue). Thread: `queue`.
    func answer(_ request: EngineRequest) -> EngineReply {
        dispatchPrecondition(condition: .onQueue(queue))
        switch request {
        case .start(let start): return .job(startOnQueue(start))
        case .cancel(let id): return .job(cancelOnQueue(id))
        case .snapshot: return .snapshot(makeSnapshot())
        case .resume(let epoch, let since):
            if epoch == self.epoch, let events = stream.events(after: since) { return .resume(.events(events)) }
            return .resume(.snapshot(makeSnapshot()))
        case .job(let id):
            guard let record = table[JobID(id)] else { return .job(.failure(EngineError(.notFound, "no job \(id)"))) }
            return .job(.success(record))
        case .news: return .news(news)
        case .statistics:
            var copy = statistics
            copy.jobsRunning = running.count
            copy.workersConnected = remote.pool.count
            copy.seq = stream.seq
            copy.sortCache = environment.sortCache.figures
            for job in running.values { copy.progressCoalesced += job.coalescer.heldBack }
            return .statistics(copy)
        case .workers: return .workers(remote.pool.infos)
        case .page, .history, .metrics: preconditionFailure("pages, history and heap figures are read off the queue")
        }
    }

    // MARK: - Blocking conveniences for tests and tools (any thread but `queue`; they wait)
    // Those that change state hand their events to subscribers before they return, so a caller that
    // asks a subscriber what happened sees it.

    /// Starts a job, or returns the job an earlier request with the same `requestId` started.
    public func start(_ request: StartRequest) -> Result<JobRecord, EngineError> {
        queue.sync {
            let started = startOnQueue(request)
            flushOutgoing()
            return started
        }
    }

    /// Cancels a queued, waiting or running job. A running job ends `cancelled` once it notices.
    public func cancel(_ id: String) -> Result<JobRecord, EngineError> {
        queue.sync {
            let cancelled = cancelOnQueue(id)
            flushOutgoing()
            return cancelled
        }
    }

    public func snapshot() -> Snapshot { queue.sync { makeSnapshot() } }

    /// The events after `since` in `epoch`, or a snapshot when the log no longer has them.
    public func resume(epoch: String, since: Int64) -> ResumeAnswer {
        guard case .resume(let answer) = queue.sync(execute: { answer(.resume(epoch: epoch, since: since)) }) else {
            preconditionFailure("a resume is answered with .resume")
        }
        return answer
    }

    /// Subscribes and returns the snapshot the handler's first event follows, atomically (tests).
    func subscribeWithSnapshot(_ handler: @escaping @Sendable ([SequencedEvent]) -> Void) -> (Snapshot, Int) {
        let id = nextSubscriberIDs.wrappingAdd(1, ordering: .relaxed).oldValue
        return queue.sync {
            flushOutgoing()
            stream.subscribe(id, handler)
            return (makeSnapshot(), id)
        }
    }

    public func job(_ id: String) -> JobRecord? { queue.sync { table[JobID(id)] } }

    public func allJobs() -> [JobRecord] { queue.sync { table.all } }

    public func currentStatistics() -> EngineStatistics {
        guard case .statistics(let statistics) = queue.sync(execute: { answer(.statistics) }) else {
            preconditionFailure("statistics are answered with .statistics")
        }
        return statistics
    }

    /// A page of a job's results, waiting for the read.
    public func page(job id: String, offset: Int, limit: Int) -> Result<ResultPage, EngineError> {
        let done = DispatchSemaphore(value: 0)
        let result = Protected<Result<ResultPage, EngineError>?>(nil)
        readPage(job: id, offset: offset, limit: limit) { answer in
            result.withLock { $0 = answer }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    public func newsFeed() -> NewsFeed { queue.sync { news } }

    /// A page of job history, waiting for the read.
    public func history(_ query: HistoryQuery) -> Result<HistoryPage, EngineError> {
        let done = DispatchSemaphore(value: 0)
        let result = Protected<Result<HistoryPage, EngineError>?>(nil)
        readHistory(query) { answer in
            result.withLock { $0 = answer }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Stops taking jobs, waits up to `grace` seconds for running jobs, cancels what is left, waits
    /// for the cancelled jobs to end, and writes history. A second call (concurrent or later) waits
    /// the same way for the jobs still running. Thread: any but `queue`; blocks the caller.
    public func shutdown(grace: Double) {
        let waiter = DispatchSemaphore(value: 0)
        let mustWait: Bool = queue.sync {
            if !isShuttingDown {
                isShuttingDown = true
                newsTimer?.cancel()
                newsTimer = nil
                for id in table.order where table[id].map({ $0.state == .queued || $0.state == .waiting }) == true {
                    _ = finishWithoutRunning(id, state: .cancelled, reason: "the server shut down before it ran")
                }
            }
            flushOutgoing()
            guard !running.isEmpty else { return false }
            idleWaiters.append(waiter)
            return true
        }
        if mustWait, waiter.wait(timeout: .now() + max(0, grace)) == .timedOut {
            queue.sync { for id in running.keys { requestCancel(id) } }
            // A job notices a cancel between units of work; history is written once it has ended.
            waiter.wait()
        }
        history?.flush()
    }
}
