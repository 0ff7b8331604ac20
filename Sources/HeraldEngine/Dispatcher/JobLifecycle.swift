import Dispatch
import HeraldSupport

/// The jobs' lives and the events they make: starting, queueing, launching, pacing and finishing
/// jobs (`JobLifecycle+Runs`, `+Progress`), each change numbered in the one order (`emit`). The
/// state lives in types that each own one part: the jobs held (`JobTable`), the numbered events and
/// their subscribers (`EventStream`), the runs and what waits on them (`RunningJobs`), remote
/// workers (`RemoteWorkers`), what a cluster node hooks in (`ClusterHooks`), how worker threads
/// reach the queue (`WorkerIntake`) and where jobs go when they leave memory (`JobArchive`).
///
/// Thread: `queue`, for everything but the immutable `setup`, `queue` and `archive`. Only
/// `JobDispatcher`, which routes every request onto `queue`, and the collaborators above reach it.
final class JobLifecycle: @unchecked Sendable {
    // @unchecked Sendable: mutable state is confined to `queue`; the rest is immutable. Sendable so
    // that blocks queued on `queue` (timers, hops, worker threads' outcomes) may hold it.
    let setup: DispatcherSetup
    let queue: DispatchQueue
    let archive: JobArchive
    /// The jobs held, in creation order, their starts' request ids and their kept results.
    var table: JobTable
    /// The numbered events: handed to subscribers a batch at a time by `flushOutgoing`, which
    /// `emit` schedules when a batch begins and every request runs first.
    var stream: EventStream
    var news: NewsFeed
    var runs = RunningJobs()
    var statistics = EngineStatistics()
    var timers = DispatcherTimers()
    var isShuttingDown = false
    let workers = RemoteWorkers()
    let cluster = ClusterHooks()
    /// Created on first use (a launch, on `queue`).
    private(set) lazy var intake = WorkerIntake(self)

    var configuration: EngineConfiguration { setup.configuration }
    var environment: JobEnvironment { setup.environment }
    var runners: RunnerSet { setup.runners }
    var clock: any DispatcherClock { setup.clock }
    /// The wall clock now, milliseconds since 1970 (`DispatcherSetup.wallClock`). Thread: any.
    var wallMillis: Int64 { setup.wallClock() }

    init(setup: DispatcherSetup, queue: DispatchQueue, archive: JobArchive, newsCapacity: Int) {
        let configuration = setup.configuration
        self.setup = setup
        self.queue = queue
        self.archive = archive
        self.news = NewsFeed(capacity: newsCapacity)
        self.table = JobTable(requestIdsKept: configuration.requestIdsKept)
        self.stream = EventStream(log: EventLog(capacity: max(1, configuration.eventLogSize), maxBytes: configuration.eventLogBytes))
        for record in archive.history?.load() ?? [] {
            table.insert(record)
        }
    }

    /// Hands the events numbered so far to every subscriber, as one batch.
    func flushOutgoing() {
        guard let (batch, handlers) = stream.takeBatch() else { return }
        for handler in handlers { handler(batch) }
    }

    /// Gives the event its number, logs it, and hands it to every subscriber, in order.
    func emit(_ event: EngineEvent) {
        dispatchPrecondition(condition: .onQueue(queue))
        let (_, beganBatch) = stream.append(event, ts: WallClock.micros())
        if case .job(let record) = event { archive.history?.record(record) }
        // The batch begins: it is handed over once the blocks queued so far have added theirs.
        if beganBatch { queue.async { [self] in flushOutgoing() } }
    }

    func makeSnapshot() -> Snapshot {
        let limits: JSONObject = [
            "kinds": .object(runners.catalog(configuration)),
            "workers": .int(Int64(configuration.workers)),
            "maxSearchResults": .int(Int64(environment.maxSearchResults)),
            "maxSortCount": .int(Int64(environment.maxSortCount)),
            "eventLogSize": .int(Int64(stream.log.capacity)),
            "progressEventsPerSecond": .number(configuration.progressEventsPerSecond),
        ]
        return Snapshot(epoch: setup.epoch, seq: stream.seq, jobs: table.all, news: news, limits: limits, workers: workers.pool.infos)
    }

    /// The counters with the figures read now.
    func currentStatistics() -> EngineStatistics {
        var copy = statistics
        copy.jobsRunning = runs.count
        copy.workersConnected = workers.pool.count
        copy.seq = stream.seq
        copy.sortCache = environment.sortCache.figures
        copy.progressCoalesced += runs.heldBack
        copy.degraded = archive.health.problem
        copy.storageFailing = copy.degraded != nil
        copy.storageWriteFailures = archive.health.failures
        return copy
    }

    /// Stops taking jobs: queued and waiting jobs end `cancelled`, background fetches stop.
    func close() {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        timers.stop(.news)
        for id in table.order where table[id].map({ $0.state == .queued || $0.state == .waiting }) == true {
            finishWithoutRunning(id, state: .cancelled, reason: "the server shut down before it ran")
        }
    }
}
