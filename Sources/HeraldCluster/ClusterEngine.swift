import Dispatch
import Foundation
import HeraldEngine
import HeraldRedis
import HeraldSupport

/// A node of a cluster (`herald serve --redis`): the engine its hub talks to, behind the same
/// `JobEngine` messages as a single server's `JobDispatcher`.
///
/// It has two halves:
/// - **What this node runs**: `local`, an ordinary dispatcher that runs the jobs started on this
///   node (and its attached workers' jobs). Its events do not go to viewers directly: the publisher
///   appends them to the shared stream in Redis, where each gets its `seq`.
/// - **What the cluster shows**: the tail reads the shared stream, every node's events in one order,
///   into a `ClusterView` and hands them to this node's viewers. Snapshots and resumes come from the
///   view, so a viewer on any node sees every job in the same order, byte for byte.
/// Starts are admitted by a script in Redis (the busy rule holds across nodes); cancels and pages of
/// another node's job go to that node through its control stream.
///
/// Threads: `view`, `subscribers`, `resetHandlers` and `limits` are confined to `viewQueue`, where
/// every subscriber call and every snapshot or resume reply runs (so they are in step, as the
/// `JobEngine` contract asks). `commandLink` is confined to `commandQueue`. The publisher and
/// the tail run on threads of their own. Everything else is immutable or guarded (`Protected`).
public final class ClusterEngine: JobEngine, @unchecked Sendable {
    // @unchecked Sendable: mutable state is confined to the queues named above.
    public let local: JobDispatcher
    public let settings: ClusterSettings
    let health = ClusterHealth()
    let viewQueue = DispatchQueue(label: "herald.cluster.view", qos: .userInitiated)
    let commandQueue = DispatchQueue(label: "herald.cluster.commands", qos: .userInitiated)
    /// Set once, in `init` (their handlers need `self`); only read after.
    private(set) var publisher: ClusterPublisher!
    private(set) var tail: ClusterTail!
    let logger: @Sendable (String) -> Void
    /// Looks for lapsed leases once a second (`startReaper`); guarded by its lock.
    let reaperTimer = Protected<DispatchSourceTimer?>(nil)
    /// Looks for room for queued jobs once a second (`startClaiming`); guarded by its lock.
    let claimTimer = Protected<DispatchSourceTimer?>(nil)
    /// How fresh this node's leases are (`ClusterEngine+Leases`): the publisher thread writes it,
    /// the dispatcher queue and `leaseQueue` read it; guarded by its lock.
    let leaseStanding: Protected<LeaseStanding>
    /// The lease's verdict `leaseQueue` acted on last; guarded by its lock.
    let leaseVerdictSeen = Protected(LeaseStanding.Verdict.holds)
    /// Watches the lease four times a second (`startLeaseWatch`); guarded by its lock. Its own
    /// queue: `commandQueue` may be waiting for Redis just when the lease runs out.
    let leaseTimer = Protected<DispatchSourceTimer?>(nil)
    let leaseQueue = DispatchQueue(label: "herald.cluster.lease", qos: .userInitiated)
    /// The newest seq a start on this node wrote itself (the `admit` script): answers from the view
    /// wait for it, as for this node's own events. Any thread.
    let admittedThrough = Protected<Int64>(0)
    /// The kinds this node can run (itself or on its workers).
    let runnable: Set<JobKind>
    /// The kinds of `runnable` whose `concurrency` holds across the cluster (`clusterLimit(of:)` > 0):
    /// fixed with the configuration, so set once in `init`, not worked out per batch the view applies.
    let clusterLimitedKinds: Set<JobKind>
    /// The epoch now, for `epoch` (any thread).
    let currentEpoch = Protected("")
    /// Whether this node is the cluster's news fetcher now (the publisher's renewals write it; the
    /// dispatcher's news timer reads it): one node fetches news in the background.
    let isNewsFetcher = Protected(false)
    /// The node's figures (publisher, tail, view and command queue write them; any thread reads).
    let figures: Protected<ClusterStatistics>
    private let nextSubscriberIDs = Protected(0)

    // Confined to `viewQueue`:
    var view: ClusterView?
    var subscribers: [Int: @Sendable ([SequencedEvent]) -> Void] = [:]
    var resetHandlers: [@Sendable () -> Void] = []
    /// The serving node's limits for snapshots (its kinds and settings), read from `local` at start.
    var limits: JSONObject = [:]
    /// The newest of this node's own events (by its dispatcher's seq) the view has applied.
    var ownApplied: Int64 = 0
    /// Answers waiting for the view to catch up with this node's own events (`afterOwnEvents`).
    var ownEventWaiters: [Int: (through: Int64, seq: Int64, run: @Sendable () -> Void)] = [:]
    var nextWaiter = 0

    // Confined to `commandQueue`:
    let commandLink: ClusterLink

    /// This node's jobs whose `log` events skipped lines (a flood), until they end and their whole kept
    /// log is written to Redis (`keepWholeLogsOfFloodedJobs`). The publisher thread reads and writes it.
    let floodedLogs = Protected<Set<JobID>>([])

    /// This node's pending webhook deliveries (their JSON array; empty: none) not yet copied into
    /// Redis, newest only; nil when nothing waits. The notifier's file queue sets it,
    /// `commandQueue` writes and clears it (`mirrorDeliveries`).
    let deliveriesToMirror = Protected<[UInt8]?>(nil)

    /// This node's audit events waiting for the shared audit stream (`ClusterEngine+Audit`): the
    /// trail's `io` queue adds, `commandQueue` drains; guarded by its lock.
    let auditBacklog = Protected(AuditBacklog(limit: ClusterEngine.auditBacklogLimit))
    /// Audit events that may wait for Redis before the oldest are dropped.
    static let auditBacklogLimit = 10_000

    /// `local` must be made with `configuration.nodeName == settings.node`, and needs no event log
    /// of its own (`eventLogSize` 1: resumes are served from the view, which keeps `streamLength`).
    /// `logger` gets one line per thing an operator should know (a new epoch, a gap); any thread.
    public init(local: JobDispatcher, settings: ClusterSettings, logger: @escaping @Sendable (String) -> Void) {
        self.local = local
        self.settings = settings
        self.logger = logger
        self.figures = Protected(ClusterStatistics(node: settings.node))
        self.runnable = Set(local.runnableKinds)
        self.clusterLimitedKinds = Self.clusterLimitedKinds(of: runnable, configuration: local.configuration)
        self.commandLink = ClusterLink(.commands, settings: settings, health: health)
        self.leaseStanding = Protected(LeaseStanding(lease: settings.nodeTimeoutSeconds, since: MonotonicCondition.now()))
        publisher = ClusterPublisher(
            settings: settings, health: health,
            epochLost: { [weak self] in self?.logger("Redis refused an append: the stream has a new epoch") },
            measured: { [weak self] roundTrip, stale in
                self?.figures.withLock {
                    $0.redisRoundTripSeconds = roundTrip
                    $0.staleWrites += stale.count
                }
                if !stale.isEmpty { self?.refused(stale) }
            }, wantsNews: (local.configuration.newsInterval ?? 0) > 0,
            newsFetcher: { [weak self] fetcher in self?.isNewsFetcher.withLock { $0 = fetcher } },
            forgotten: { [weak self] in
                self?.logger("the other nodes had forgotten this node (it was silent past its lease); its workers are listed again")
                self?.local.announceWorkers()
            },
            appended: { [weak self] batch in self?.keepWholeLogsOfFloodedJobs(batch) },
            renewed: { [weak self] sentAt in self?.leaseRenewed(sentAt: sentAt) })
        tail = ClusterTail(
            settings: settings, health: health, makeEpoch: JobDispatcher.makeEpoch,
            handlers: ClusterTail.Handlers(
                bootstrapped: { [weak self] read in
                    guard let self else { return }
                    viewQueue.async { self.adopt(read) }
                },
                entries: { [weak self] entries in
                    guard let self else { return }
                    viewQueue.async { self.apply(entries) }
                },
                control: { [weak self] requests in self?.serve(requests) },
                log: logger))
        // The publisher's and the tail's pauses end by themselves when Redis answers another
        // connection; the command connection has no thread to wait in, so it is tried here.
        health.whenAnswered { [weak self] link in
            guard let self, link != .commands else { return }
            commandQueue.async { self.reconnectCommands() }
        }
    }

    /// Joins the cluster: reads the view from Redis (throws when Redis cannot be reached: a node does
    /// not start without it), then starts appending this node's events and reading everyone's.
    /// Thread: the starting thread, once, before the hub subscribes.
    public func start() throws(ClusterFailure) {
        try tail.refuseIfNodeIsRunning()
        var localLimits = local.snapshot().limits
        localLimits["eventLogSize"] = .int(Int64(settings.streamLength))
        let serving = localLimits
        viewQueue.sync { limits = serving }
        try tail.bootstrapNow()
        // The bootstrap's view is adopted on the view queue; wait for it, so the first snapshot is real.
        viewQueue.sync {}
        _ = local.subscribe { [publisher] events in publisher?.enqueue(events) }
        local.gateBackgroundFetches { [isNewsFetcher] in isNewsFetcher.withLock { $0 } }
        local.claimScheduleOccurrences { [weak self] schedule, occurrence, answer in
            guard let self else { return answer(false) }
            commandQueue.async { [self] in answer(claimOccurrence(schedule, occurrence)) }
        }
        gateDependentStarts()
        tail.start()
        // This node's own jobs from before a crash or a kill: taken back before its first renewal.
        commandQueue.sync { reclaimOwnLeases() }
        startLeaseWatch()
        publisher.start()
        // After the first renewal is under way: another node takes over only a silent node's deliveries.
        local.mirrorPendingDeliveries { [weak self] deliveries in self?.noteDeliveries(deliveries) }
        startReaper()
        startClaiming()
    }

    /// Stops reading and, once this node's last events are appended (or Redis is unreachable, or
    /// after a few seconds), appending. Thread: any; `HeraldApp.stop` calls it after `local.shutdown`.
    public func close() {
        stopLeaseWatch()
        stopReaper()
        stopClaiming()
        tail.stop()
        publisher.stop(waitingUpTo: 5)
    }

    public var epoch: String { currentEpoch.withLock { $0 } }

    // MARK: - The view queue

    /// A bootstrap's view replaces the old one. A new epoch, or a gap in what this node read, means
    /// its viewers' positions lead nowhere: each gets a snapshot. Thread: `viewQueue`.
    func adopt(_ read: ClusterBootstrap) {
        let previous = view
        view = ClusterView(
            epoch: read.epoch, seq: read.seq, jobs: read.jobs, finished: read.finished, workersByNode: read.workersByNode,
            eventLogSize: settings.streamLength, eventLogBytes: local.configuration.eventLogBytes,
            retainedFinishedJobs: settings.retainedFinishedJobs)
        currentEpoch.withLock { $0 = read.epoch }
        publisher.setEpoch(read.epoch)
        guard let previous else { return }
        if previous.epoch != read.epoch {
            figures.withLock { $0.epochResets += 1 }
            logger("the shared stream has a new epoch \(read.epoch) (Redis lost its data); every viewer gets a snapshot")
            reclaimRunningJobs()
        }
        for handler in resetHandlers { handler() }
    }

    /// The next entries of the stream: into the view, then to every subscriber as one batch.
    /// Thread: `viewQueue`.
    func apply(_ entries: [ClusterEntry]) {
        guard let viewSeq = view?.seq, let first = entries.first, first.seq == viewSeq + 1 else { return }
        // Applied to `view` in place: a copy (`var current = view`, then `view = current`) shares its
        // storage, so the first change of each batch copied every job record and the whole resume log
        // (600 KB a batch in the soak, many batches a second).
        // (`view!`: checked above, and only this queue sets it.)
        let events = entries.map { view!.apply(seq: $0.seq, ts: $0.ts, node: $0.node, event: $0.event) }
        let appliedSeq = view!.seq
        // Subscribers first: an answer a waiter gives now (a snapshot at the view's seq) must reach the
        // hub after these events, as the `JobEngine` contract says, or a viewer would get them again
        // after a snapshot that covers them (the soak saw seq 25, then 24).
        for handler in subscribers.values { handler(events) }
        for entry in entries where entry.node == settings.node { ownApplied = max(ownApplied, entry.localSeq) }
        for (id, waiter) in ownEventWaiters where waiter.through <= ownApplied && waiter.seq <= appliedSeq {
            ownEventWaiters[id] = nil
            waiter.run()
        }
        noticeRoom(in: entries)
        // Other nodes' jobs may be what this node's waiting jobs depend on (`after`).
        var foreign: [JobID: JobState] = [:]
        for entry in entries where entry.node != settings.node {
            if case .job(let record) = entry.event { foreign[record.id] = record.state }
        }
        if !foreign.isEmpty { local.noteForeignJobs(foreign) }
        if let last = entries.last {
            let lag = max(0, Date().timeIntervalSince1970 - Double(last.ts) / 1_000_000)
            figures.withLock { $0.streamLagSeconds = lag }
        }
    }

    /// Runs `body` on the view queue once the view has applied every event this node's dispatcher
    /// made so far, so an answer from the view shows what this node did (a job it just started or
    /// ended; the news it just fetched), as a single server's would. After a second without that
    /// (Redis away, or an event Redis refused), it runs anyway. Thread: any; never blocks.
    func afterOwnEvents(_ body: @escaping @Sendable () -> Void) {
        local.send(.statistics) { [self] answer in
            guard case .statistics(let statistics) = answer else { return viewQueue.async(execute: body) }
            let admitted = admittedThrough.withLock { $0 }
            viewQueue.async { [self] in
                guard statistics.seq > ownApplied || admitted > (view?.seq ?? 0) else { return body() }
                let id = nextWaiter
                nextWaiter += 1
                ownEventWaiters[id] = (statistics.seq, admitted, body)
                viewQueue.asyncAfter(deadline: .now() + 1) { [self] in
                    if let waiter = ownEventWaiters.removeValue(forKey: id) { waiter.run() }
                }
            }
        }
    }

    // MARK: - Messages (JobEngine): any thread, never blocks

    public func subscribe(_ handler: @escaping @Sendable ([SequencedEvent]) -> Void) -> Int {
        let id = nextSubscriberIDs.withLock { next in
            defer { next += 1 }
            return next
        }
        viewQueue.async { [self] in subscribers[id] = handler }
        return id
    }

    public func unsubscribe(_ id: Int) {
        viewQueue.async { [self] in _ = subscribers.removeValue(forKey: id) }
    }

    public func onStreamReset(_ handler: @escaping @Sendable () -> Void) {
        viewQueue.async { [self] in resetHandlers.append(handler) }
    }

    public func attachWorker(_ session: WorkerSession, _ hello: WorkerHello, directives: @escaping @Sendable (WorkerDirective) -> Void) {
        local.attachWorker(session, hello, directives: directives)
    }

    public func workerSent(_ session: WorkerSession, _ report: WorkerReport) { local.workerSent(session, report) }

    public func detachWorker(_ session: WorkerSession) { local.detachWorker(session) }
}
