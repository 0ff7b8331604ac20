import Foundation
import HeraldEngine
import HeraldRedis
import HeraldSupport

/// Appends this node's events to the shared stream, in the order its dispatcher made them, on a
/// thread of its own with its own Redis connection: a batch at a time (what is waiting when it gets
/// to run, `ClusterBatchBound`), one `append` script call per batch, which Redis runs whole or not at
/// all (what crosses to Redis, and Redis's own work but the `XADD`s, is paid per batch, not per event).
///
/// When Redis cannot be reached the events wait here and the node is degraded; on reconnecting they
/// are appended in order. The wait is bounded (`backlogLimit` events, `backlogBytes` of encodings):
/// past it the oldest progress events go first (a later one replaces them), then the oldest log and
/// results batches (counted in `shed`); a job's changes of state, news and workers never go. A batch
/// whose answer was lost with the connection is sent again, the same events under the same ticket, and
/// the script recognises it when it had landed: each event is appended exactly once, never lost while
/// waiting.
///
/// Threads: `enqueue`, `setEpoch`, `stop` and `backlog` from any thread, guarded by `condition`;
/// everything else runs on the publisher thread only.
final class ClusterPublisher: @unchecked Sendable {
    // @unchecked Sendable: `pending`, `inFlight`, `shed`, `epoch`, `stopping` and `started` are guarded by `condition`;
    // `link` and `hasBeaten` are used only on the publisher thread.
    private let settings: ClusterSettings
    private let health: ClusterHealth
    private let condition = MonotonicCondition()
    private var pending = EventBacklog()
    /// The first `inFlight` of `pending` are being appended now, or were sent and their answer lost:
    /// the bound never drops them.
    private var inFlight = 0
    /// Unique to this publisher's life, so no ticket of an earlier run of the node matches one of this.
    private let incarnation = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    /// Batches sent so far: the second half of the next ticket. Publisher thread only.
    private var batchesSent: UInt64 = 0
    /// The batch whose answer was lost: its ticket and size, sent again as it was. Publisher thread only.
    private var unanswered: (ticket: String, count: Int)?
    /// Events dropped by the bound.
    private var shed = 0
    private var epoch: String?
    private var stopping = false
    private var started = false
    /// Signalled when the thread ends.
    private let finished = DispatchSemaphore(value: 0)
    private let link: ClusterLink
    /// Told on the publisher thread: Redis has a new epoch (its data is gone); the engine bootstraps again.
    private let epochLost: @Sendable () -> Void
    /// Told on the publisher thread: figures for the node's statistics.
    private let measured: @Sendable (_ roundTrip: Double, _ refusedJobs: [JobID]) -> Void
    /// Whether this node fetches news in the background (`--news-interval`), and where each renewal
    /// says whether it is the cluster's news fetcher (told on the publisher thread).
    private let wantsNews: Bool
    private let newsFetcher: @Sendable (Bool) -> Void
    /// Told on the publisher thread when a renewal found this node's heartbeat gone after it had
    /// beaten before: the others forgot it (it was paused past its lease) and its workers with it.
    private let forgotten: @Sendable () -> Void
    /// Told on the publisher thread with each batch Redis took (under the current epoch; without the
    /// events it refused as another node's), in order.
    private let appended: @Sendable ([SequencedEvent]) -> Void
    /// Told on the publisher thread after each renewal Redis took, with when (monotonic seconds) it
    /// was sent: the node's leases restarted no earlier than that (`LeaseStanding`).
    private let renewed: @Sendable (Double) -> Void
    private var hasBeaten = false
    static let backlogLimit = 200_000
    static let backlogBytes = 16 << 20

    init(
        settings: ClusterSettings, health: ClusterHealth, epochLost: @escaping @Sendable () -> Void,
        measured: @escaping @Sendable (Double, [JobID]) -> Void, wantsNews: Bool = false,
        newsFetcher: @escaping @Sendable (Bool) -> Void = { _ in }, forgotten: @escaping @Sendable () -> Void = {},
        appended: @escaping @Sendable ([SequencedEvent]) -> Void = { _ in }, renewed: @escaping @Sendable (Double) -> Void = { _ in }
    ) {
        self.settings = settings
        self.health = health
        self.link = ClusterLink(.publisher, settings: settings, health: health)
        self.epochLost = epochLost
        self.measured = measured
        self.wantsNews = wantsNews
        self.newsFetcher = newsFetcher
        self.forgotten = forgotten
        self.appended = appended
        self.renewed = renewed
    }

    func start() {
        condition.lock()
        started = true
        condition.unlock()
        let thread = Thread { [self] in run() }
        thread.name = "herald.cluster.publisher"
        thread.start()
    }

    /// Queues a batch of this node's events. Thread: any (the dispatcher queue); never blocks on Redis.
    func enqueue(_ events: [SequencedEvent]) {
        condition.lock()
        pending.append(contentsOf: events)
        if pending.count > Self.backlogLimit || pending.bytes > Self.backlogBytes { shedBacklog() }
        condition.signal()
        condition.unlock()
    }

    /// The epoch appends are made under (after a bootstrap). Thread: any.
    func setEpoch(_ epoch: String) {
        condition.lock()
        self.epoch = epoch
        condition.signal()
        condition.unlock()
    }

    /// Events waiting for Redis, and those the bound dropped so far. Thread: any.
    var backlog: (waiting: Int, shed: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (pending.count, shed)
    }

    /// Ends the thread once the events queued so far are appended (or Redis is unreachable), and
    /// waits for that up to `seconds`. Thread: any but the publisher thread.
    func stop(waitingUpTo seconds: Double) {
        condition.lock()
        stopping = true
        condition.signal()
        let running = started
        condition.unlock()
        if running { _ = finished.wait(timeout: .now() + seconds) }
    }

    /// Over a bound: progress events go, oldest first, then log and results batches, until half of
    /// each bound is left. Thread: any, `condition` held.
    private func shedBacklog() {
        let sheddable: [(SequencedEvent) -> Bool] = [{ $0.progressJob != nil }, Self.isOutput]
        for rule in sheddable {
            shed += pending.shed(sparingFirst: inFlight, downTo: Self.backlogLimit / 2, bytes: Self.backlogBytes / 2, where: rule)
        }
    }

    private static func isOutput(_ event: SequencedEvent) -> Bool {
        switch event.event {
        case .log, .results: return true
        default: return false
        }
    }

    // MARK: - The publisher thread

    private func run() {
        // Monotonic: a wall clock stepped back must not stop the heartbeats (and the leases with them).
        var lastHeartbeat = -Double.infinity
        let interval = renewalInterval
        while true {
            condition.lock()
            while (pending.isEmpty || epoch == nil) && !stopping && MonotonicCondition.now() - lastHeartbeat < interval {
                let untilDue = lastHeartbeat + interval - MonotonicCondition.now()
                _ = condition.wait(until: MonotonicCondition.deadline(after: min(0.5, max(0, untilDue))))
            }
            let size = unanswered.map { min($0.count, pending.count) } ?? ClusterBatchBound.publisher.size(of: pending.waiting)
            let batch = epoch == nil ? [] : pending.prefix(size)
            inFlight = max(batch.count, unanswered?.count ?? 0)
            let epoch = self.epoch
            let done = stopping && (pending.isEmpty || !health.isWorking(.publisher))
            condition.unlock()
            if done { break }
            if MonotonicCondition.now() - lastHeartbeat >= interval, heartbeat() { lastHeartbeat = MonotonicCondition.now() }
            guard let epoch, !batch.isEmpty else { continue }
            let appended = append(batch, epoch: epoch)
            condition.lock()
            let settled = min(appended, pending.count)
            pending.removeFirst(settled)
            inFlight = settled == 0 ? (unanswered?.count ?? 0) : 0
            condition.unlock()
        }
        link.close()
        finished.signal()
    }

    /// Seconds between renewals: one a second, or a quarter of the lease when that is shorter, so a
    /// renewal is never near half the lease old, when the node stops starting attempts (`LeaseStanding`).
    var renewalInterval: Double { min(1, settings.nodeTimeoutSeconds / 4) }

    /// Renews the leases of the jobs this node holds, tells the cluster it is alive, and takes or
    /// keeps the news fetcher's lease when it wants it (`renew`). Returns whether it did.
    private func heartbeat() -> Bool {
        guard let connection = link.connectionOrPause()?.connection else {
            newsFetcher(false)
            return false
        }
        let keys = settings.keys
        let sentAt = MonotonicCondition.now()
        do {
            let answer = try connection.evaluate(
                RenewScript(
                    keys: .init(keys),
                    args: .init(
                        node: settings.node, wantsNews: wantsNews,
                        leaseMilliseconds: Int64(settings.nodeTimeoutSeconds * 1000))))
            let parts = answer.array ?? []
            newsFetcher(parts.count == 3 && parts[2].integer == 1)
            if parts.count == 3, parts[1].integer == 1, hasBeaten { forgotten() }
            hasBeaten = true
            renewed(sentAt)
            return true
        } catch {
            link.failed(error)
            newsFetcher(false)
            return false
        }
    }

    /// Appends the batch with one script call; returns how many events are done with (appended, or
    /// refused for good). On a lost connection, the batch is tried again later: when the call had been
    /// sent, the same batch under the same ticket (`unanswered`), so that it is not appended twice.
    private func append(_ batch: [SequencedEvent], epoch: String) -> Int {
        guard let connection = link.connectionOrPause()?.connection else { return 0 }
        let ticket: String
        if let unanswered {
            ticket = unanswered.ticket
        } else {
            batchesSent += 1
            ticket = "\(incarnation):\(batchesSent)"
        }
        let call = ClusterAppend.call(
            batch.map { ClusterAppend(event: $0, settings: settings) }, settings: settings, epoch: epoch, ticket: ticket,
            retry: unanswered != nil)
        let began = MonotonicCondition.now()
        let reply: RedisReply
        do {
            reply = try connection.evaluate(call)
        } catch {
            link.failed(error)
            unanswered = (ticket, batch.count)
            return 0
        }
        unanswered = nil
        link.worked()
        if let message = reply.errorMessage, message.hasPrefix("EPOCH") {
            // Redis lost its data: these events belong to a stream that is gone. The engine
            // bootstraps a new epoch and appends its running jobs' records again.
            condition.lock()
            self.epoch = nil
            condition.unlock()
            epochLost()
            measured(MonotonicCondition.now() - began, [])
            return batch.count
        }
        var refused: Set<JobID> = []
        for (index, answer) in (reply.array ?? []).enumerated() where index < batch.count {
            if let message = answer.errorMessage, message.hasPrefix("STALE"), let job = ClusterAppend.job(of: batch[index].event) {
                refused.insert(job)
            }
        }
        measured(MonotonicCondition.now() - began, refused.sorted())
        // What Redis took: not the events of jobs that are no longer this node's.
        appended(batch.filter { event in ClusterAppend.job(of: event.event).map { !refused.contains($0) } ?? true })
        return batch.count
    }
}
