import Dispatch
import Foundation
import HeraldSupport
import Synchronization

/// The one dispatcher: a serial queue that owns all job state and numbers every event.
///
/// It routes requests onto `queue` and answers them; the jobs' lives and the one order of their
/// events are `jobs`' (`JobLifecycle`, and the types it is made of).
///
/// Threads: `jobs` is reached only on `queue`. The server talks to the dispatcher only by messages
/// (`JobEngine`: `send`, `subscribe`, `unsubscribe`), which hop onto `queue` with `async` and never
/// wait. The blocking conveniences (`JobDispatcher+Blocking`) hop with `sync`: they are for tests
/// and tools, never for a thread that must not wait (the server's service thread). Worker threads
/// reach the queue only through bounded hops (`WorkerIntake`). Subscribers and replies run on
/// `queue`, in seq order.
public final class JobDispatcher: JobEngine, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is confined to `queue` (see above); the rest is immutable.
    let setup: DispatcherSetup
    let queue = DispatchQueue(label: "herald.dispatcher", qos: .userInitiated)
    /// Where jobs go when they leave memory, and pages read them back. Thread: any.
    let archive: JobArchive
    /// Thread: `queue`.
    let jobs: JobLifecycle
    /// Fires the jobs file's schedules. Thread: `queue`.
    let schedules: Scheduler
    /// Tells webhooks when jobs end. Thread: `queue`.
    let webhooks: WebhookNotifier

    /// Subscription ids, handed out without a hop. Thread: any.
    private static let subscriberIDs = Atomic<Int>(0)

    public var epoch: String { setup.epoch }
    public var configuration: EngineConfiguration { setup.configuration }
    public var environment: JobEnvironment { setup.environment }
    var runners: RunnerSet { setup.runners }

    public init(
        configuration: EngineConfiguration = EngineConfiguration(), environment: JobEnvironment,
        runners: [any JobRunner], history: HistoryStore? = nil, newsCapacity: Int = 200, clock: any DispatcherClock = SystemClock(),
        wallClock: @escaping @Sendable () -> Int64 = WallClock.millis
    ) {
        self.setup = DispatcherSetup(
            epoch: Self.makeEpoch(), configuration: configuration, environment: environment,
            runners: RunnerSet(runners, enableTicker: configuration.enableTicker), clock: clock, wallClock: wallClock)
        self.archive = JobArchive(history: history, logFolder: environment.dataDirectory.appendingPathComponent("logs"))
        self.jobs = JobLifecycle(setup: setup, queue: queue, archive: archive, newsCapacity: newsCapacity)
        self.schedules = Scheduler(configuration.schedules, jobs: jobs, log: { [health = archive.health] in health.note($0) })
        self.webhooks = WebhookNotifier(
            rules: configuration.webhooks, backoff: configuration.webhookBackoff, jobs: jobs,
            log: { [health = archive.health] in health.note($0) })
        if let interval = configuration.newsInterval, interval > 0 {
            queue.async { [jobs] in jobs.startNewsTimer(every: interval) }
        }
    }

    /// 16 random hex characters: differs on every start, so clients know a resume cannot work.
    public static func makeEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%016llx", generator.next() as UInt64)
    }

    // MARK: - Messages (JobEngine): any thread, never blocks

    public func send(_ request: EngineRequest, reply: @escaping @Sendable (EngineReply) -> Void) {
        switch request {
        case .page(let job, let offset, let limit): return readPage(job: job, offset: offset, limit: limit) { reply(.page($0)) }
        case .history(let query): return readHistory(query) { reply(.history($0)) }
        case .job(let id): return lookUpJob(id) { reply(.job($0)) }
        case .metrics:
            return queue.async { [self] in
                let statistics = statisticsOnQueue()
                // `mallinfo2` takes every arena's lock: read on a global queue, not on `queue`.
                DispatchQueue.global(qos: .utility).async {
                    var withHeap = statistics
                    withHeap.heap = HeapFigures.read()
                    reply(.statistics(withHeap))
                }
            }
        default: break
        }
        queue.async { [self] in
            // Every event before the request reaches subscribers before its reply (a snapshot at
            // seq S follows every event up to S). Events the request causes (a start's `queued`,
            // `running`) reach them after the reply, so a client reads `accepted` before the job's
            // events, as it always has.
            jobs.flushOutgoing()
            jobs.stream.hold()
            let answered = answer(request)
            reply(answered)
            jobs.stream.release()
            jobs.flushOutgoing()
        }
    }

    public func subscribe(_ handler: @escaping @Sendable ([SequencedEvent]) -> Void) -> Int {
        let id = Self.newSubscriberID()
        queue.async { [jobs] in
            // Events numbered before the subscription are not this subscriber's.
            jobs.flushOutgoing()
            jobs.stream.subscribe(id, handler)
        }
        return id
    }

    public func unsubscribe(_ id: Int) {
        queue.async { [jobs] in jobs.stream.unsubscribe(id) }
    }

    static func newSubscriberID() -> Int { subscriberIDs.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// Answers every request but `.page`, `.history`, `.job` and `.metrics` (which read files or
    /// the heap off the queue). Thread: `queue`.
    func answer(_ request: EngineRequest) -> EngineReply {
        dispatchPrecondition(condition: .onQueue(queue))
        switch request {
        case .start(let start): return .job(jobs.startOnQueue(start))
        case .cancel(let id, let principal): return .job(jobs.cancelOnQueue(id, by: principal))
        case .snapshot: return .snapshot(jobs.makeSnapshot())
        case .resume(let epoch, let since):
            if epoch == self.epoch, let events = jobs.stream.events(after: since) { return .resume(.events(events)) }
            return .resume(.snapshot(jobs.makeSnapshot()))
        case .job(let id):
            guard let record = jobs.table[JobID(id)] else { return .job(.failure(EngineError(.notFound, "no job \(id)"))) }
            return .job(.success(record))
        case .news: return .news(jobs.news)
        case .statistics: return .statistics(statisticsOnQueue())
        case .workers: return .workers(jobs.workers.pool.infos)
        case .schedules: return .schedules(schedules.statuses())
        case .controlSchedule(let name, let action): return .schedule(schedules.control(name, action))
        case .webhooks: return .webhooks(webhooks.webhookStatuses())
        case .page, .history, .metrics: preconditionFailure("pages, history and heap figures are read off the queue")
        }
    }

    /// Starts firing the jobs file's schedules (`EngineConfiguration.schedules`), catching up what
    /// was missed while the server was down. A cluster node calls it once its occurrence claim is in
    /// place (`claimScheduleOccurrences`). Thread: any; never waits.
    public func startSchedules() {
        queue.async { [schedules] in schedules.start() }
    }

    /// Starts telling the jobs file's webhooks (`EngineConfiguration.webhooks`) through `transport`:
    /// the deliveries an earlier run left pending first. `jobLink` and a job's id make the job's
    /// address in a delivery's body (`http://HOST:PORT/api/jobs/`). Ends seen before this call are
    /// told now. Thread: any; never waits.
    public func startWebhooks(transport: any WebhookTransport, jobLink: String) {
        queue.async { [webhooks] in webhooks.start(transport: transport, jobLink: jobLink) }
    }

    /// The counters, the schedules' among them. Thread: `queue`.
    func statisticsOnQueue() -> EngineStatistics {
        var statistics = jobs.currentStatistics()
        statistics.schedules = schedules.statuses()
        statistics.webhooks = webhooks.counts
        return statistics
    }

    /// Stops taking jobs, waits up to `grace` seconds for running jobs, cancels what is left, waits
    /// for the cancelled jobs to end, and writes history. A second call (concurrent or later) waits
    /// the same way for the jobs still running. Thread: any but `queue`; blocks the caller.
    public func shutdown(grace: Double) {
        let waiter = DispatchSemaphore(value: 0)
        let mustWait: Bool = queue.sync {
            schedules.stop()
            jobs.close()
            jobs.flushOutgoing()
            guard !jobs.runs.isEmpty else { return false }
            jobs.runs.signalWhenIdle(waiter)
            return true
        }
        if mustWait, waiter.wait(timeout: .now() + max(0, grace)) == .timedOut {
            queue.sync { for id in jobs.runs.ids { jobs.requestCancel(id) } }
            // A job notices a cancel between units of work; history is written once it has ended.
            waiter.wait()
        }
        // The ends of the last jobs are on disk as pending deliveries, sent by the next run.
        queue.sync {
            jobs.flushOutgoing()
            webhooks.stop()
        }
        webhooks.waitForFiles()
        archive.history?.flush()
    }
}
