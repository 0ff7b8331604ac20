import Dispatch
import Foundation
import HeraldSupport

/// Tells webhooks when jobs end (docs/webhooks.md). It watches the dispatcher's event stream for
/// jobs that reach an end a `notify` entry listens for, makes one delivery per webhook (body and
/// `webhook-id` fixed once), writes it to `webhooks/pending.json` and hands its attempts to the
/// transport; a failed attempt is tried again after `WebhookBackoff`'s delay, until the last one,
/// when it is given up. Deliveries left pending by an earlier run are resent at `start`; on a
/// cluster, each write of the file is also told to a mirror (Redis), and deliveries a stopped node
/// left there are taken over (`adopt`).
///
/// Thread: everything runs on the dispatcher queue but `init` (any thread, before use), the file
/// writes (`files`) and the transport's work (its own threads; its answers hop onto the queue).
final class WebhookNotifier: @unchecked Sendable {
    // @unchecked Sendable: the state is confined to the dispatcher queue; Sendable so that timers,
    // the stream's subscription and the transport's answers, which hop onto that queue, may hold it.
    private let jobs: JobLifecycle
    private let rules: WebhookRules
    private let backoff: WebhookBackoff
    private let secrets: [String: WebhookSecret]
    private let file: PendingDeliveriesFile
    /// Writes `webhooks/pending.json`, in order, off the dispatcher queue.
    private let files = DispatchQueue(label: "herald.webhooks", qos: .utility)
    private let log: @Sendable (String) -> Void

    private var transport: (any WebhookTransport)?
    private var jobLink: String?
    /// Ends seen before `start` (the link is not known yet): made into deliveries at `start`.
    private var early: [JobRecord] = []
    /// Deliveries not delivered nor given up, by id.
    private var pending: [String: WebhookDelivery] = [:]
    private var timers: [String: any ScheduledTimer] = [:]
    private var statuses: [String: WebhookStatus] = [:]
    /// Jobs already told (an ended job's record may be sent again, with a late summary, say).
    private var told: Set<JobID> = []
    private var toldOrder: [JobID] = []
    private var stopped = false
    /// Told every pending delivery after each write of the file, on the file queue (in order): a
    /// cluster node copies them into Redis, so another node takes them over if this one dies. Set
    /// and read on the queue (`save` hands it to the file queue).
    private var mirror: (@Sendable ([WebhookDelivery]) -> Void)?

    static let toldLimit = 10_000

    init(rules: WebhookRules, backoff: WebhookBackoff, jobs: JobLifecycle, log: @escaping @Sendable (String) -> Void) {
        self.jobs = jobs
        self.rules = rules
        self.backoff = backoff
        self.log = log
        let webhooks = rules.webhooks
        self.secrets = Dictionary(webhooks.map { ($0.webhook, $0.secret) }, uniquingKeysWith: { first, _ in first })
        for entry in webhooks { statuses[entry.webhook] = WebhookStatus(webhook: entry.webhook) }
        self.file = PendingDeliveriesFile(
            url: jobs.setup.environment.dataDirectory.appendingPathComponent("webhooks").appendingPathComponent("pending.json"))
        let (saved, problem) = file.load()
        if let problem { log(problem) }
        for delivery in saved {
            guard secrets[delivery.webhook] != nil else {
                // Its webhook is no longer in the jobs file: nobody to send it to, nor a key to sign it.
                log("webhooks: delivery \(delivery.id) of job \(delivery.job) dropped: its webhook is no longer declared")
                continue
            }
            pending[delivery.id] = delivery
            statuses[delivery.webhook]?.note(delivery)
        }
        guard !rules.isEmpty else { return }
        jobs.queue.async { [self] in
            jobs.stream.subscribe(JobDispatcher.newSubscriberID()) { [weak self] batch in self?.observe(batch) }
        }
    }

    /// Starts sending: what was pending at the last stop, what ended since `init`, and from now on.
    /// `jobLink` + a job's id is the job's address in the body. Thread: the queue.
    func start(transport: any WebhookTransport, jobLink: String) {
        guard self.transport == nil, !stopped else { return }
        self.transport = transport
        self.jobLink = jobLink
        let wall = jobs.wallMillis
        for delivery in pending.values.sorted(by: { $0.createdAt < $1.createdAt }) {
            // `nextAttemptAt` is the wall clock's (it outlives the process): one stepped back since
            // must not stretch the wait past the backoff's own delay.
            let planned = Double(max(0, (delivery.nextAttemptAt ?? wall) - wall)) / 1000
            arm(delivery.id, after: min(planned, backoff.delay(afterAttempt: delivery.attempts) ?? 0))
        }
        let waiting = early
        early = []
        for record in waiting { tell(record) }
    }

    /// No attempt starts after this; what is pending stays in the file for the next run.
    func stop() {
        stopped = true
        for timer in timers.values { timer.cancel() }
        timers = [:]
    }

    /// From now on `mirror` is told every pending delivery after each write of the file, starting
    /// with those pending now. Thread: the queue.
    func mirror(to mirror: @escaping @Sendable ([WebhookDelivery]) -> Void) {
        self.mirror = mirror
        save {}
    }

    /// Takes over deliveries another node made (it stopped with them pending): each keeps its id,
    /// body and attempts, is written to this node's file and attempted when its next attempt is due.
    /// One already here, or whose webhook this node's jobs file does not declare, is skipped.
    /// Thread: the queue.
    func adopt(_ deliveries: [WebhookDelivery], from node: String) {
        var taken: [WebhookDelivery] = []
        for delivery in deliveries where pending[delivery.id] == nil {
            guard secrets[delivery.webhook] != nil else {
                log("webhooks: delivery \(delivery.id) of job \(delivery.job) from node \(node) dropped: its webhook is not declared here")
                continue
            }
            pending[delivery.id] = delivery
            statuses[delivery.webhook]?.note(delivery)
            taken.append(delivery)
        }
        guard !taken.isEmpty else { return }
        log("webhooks: took over \(taken.count) pending delivery(ies) of node \(node)")
        // On disk (and in the mirror) before the next attempt, as a new delivery is. Before `start`,
        // `start` arms them with the rest.
        save { [self] in
            guard transport != nil else { return }
            let wall = WallClock.millis()
            for delivery in taken { arm(delivery.id, after: Double(max(0, (delivery.nextAttemptAt ?? wall) - wall)) / 1000) }
        }
    }

    /// Returns once every write of the file asked for so far is done. Thread: any but the queue.
    func waitForFiles() { files.sync {} }

    // MARK: Requests

    func webhookStatuses() -> [WebhookStatus] { rules.webhooks.compactMap { statuses[$0.webhook] } }

    var counts: WebhookCounts {
        var counts = WebhookCounts()
        for status in statuses.values {
            counts.delivered += status.delivered
            counts.retried += status.retried
            counts.givenUp += status.givenUp
        }
        return counts
    }

    // MARK: Deliveries

    private func observe(_ batch: [SequencedEvent]) {
        for event in batch {
            guard case .job(let record) = event.event, NotifyEvent.of(record) != nil, !told.contains(record.id) else { continue }
            told.insert(record.id)
            toldOrder.append(record.id)
            if toldOrder.count > Self.toldLimit { told.remove(toldOrder.removeFirst()) }
            if transport == nil { early.append(record) } else { tell(record) }
        }
    }

    private func tell(_ record: JobRecord) {
        guard let event = NotifyEvent.of(record) else { return }
        let targets = rules.webhooks(for: record, event: event)
        guard !targets.isEmpty else { return }
        let now = jobs.wallMillis
        let body = WebhookPayload.body(record: record, event: event, jobLink: jobLink, now: now)
        var made: [String] = []
        for target in targets {
            let delivery = WebhookDelivery(
                id: WebhookDelivery.newID(), webhook: target.webhook, job: record.id, event: event, body: body, createdAt: now)
            pending[delivery.id] = delivery
            statuses[target.webhook]?.note(delivery)
            made.append(delivery.id)
        }
        // On disk before the first attempt: a crash from here on resends them with the same ids.
        save { [self] in for id in made { attempt(id) } }
    }

    private func arm(_ id: String, after seconds: Double) {
        timers[id]?.cancel()
        timers[id] = jobs.clock.schedule(on: jobs.queue, after: seconds, repeating: nil) { [weak self] in
            guard let self else { return }
            timers[id] = nil
            attempt(id)
        }
    }

    private func attempt(_ id: String) {
        guard !stopped, let transport, var delivery = pending[id], let secret = secrets[delivery.webhook] else { return }
        delivery.attempts += 1
        delivery.nextAttemptAt = nil
        pending[id] = delivery
        statuses[delivery.webhook]?.note(delivery)
        let queue = jobs.queue
        let number = delivery.attempts
        transport.send(WebhookAttempt(id: id, url: delivery.webhook, body: delivery.body, secret: secret, number: number)) {
            [weak self] outcome in
            guard let self else { return }
            queue.async { self.finished(id, attempt: number, outcome) }
        }
    }

    private func finished(_ id: String, attempt number: Int, _ outcome: WebhookAttemptOutcome) {
        guard var delivery = pending[id], delivery.attempts == number else { return }
        switch outcome {
        case .delivered(let status):
            delivery.status = .delivered
            delivery.lastOutcome = "HTTP \(status)"
            pending[id] = nil
            statuses[delivery.webhook]?.delivered += 1
        case .failed(let reason):
            delivery.lastOutcome = reason
            if let delay = backoff.delay(afterAttempt: number) {
                delivery.nextAttemptAt = jobs.wallMillis + Int64((delay * 1000).rounded(.up))
                pending[id] = delivery
                statuses[delivery.webhook]?.retried += 1
                arm(id, after: delay)
            } else {
                delivery.status = .givenUp
                pending[id] = nil
                statuses[delivery.webhook]?.givenUp += 1
                log(
                    "webhooks: gave up delivery \(id) of job \(delivery.job) to \(WebhookStatus.shown(delivery.webhook)) after \(number) attempts (last: \(reason))"
                )
            }
        }
        statuses[delivery.webhook]?.note(delivery)
        save {}
    }

    /// Writes every pending delivery to the file off the queue, then runs `then` on the queue. A
    /// write that fails (a full disk) is told through `StorageHealth`; the deliveries go on from memory.
    private func save(then: @escaping () -> Void) {
        let deliveries = pending.values.sorted { $0.createdAt < $1.createdAt }
        let (file, health, queue, mirror) = (file, jobs.archive.health, jobs.queue, mirror)
        nonisolated(unsafe) let then = then
        files.async {
            do {
                try file.save(deliveries)
                health.succeeded("webhooks")
            } catch {
                health.failed("webhooks", path: file.url.path, "\(error)")
            }
            mirror?(deliveries)
            queue.async { then() }
        }
    }
}
