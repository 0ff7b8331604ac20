import Foundation

/// The engine's settings, with the defaults a user gets without flags.
public struct EngineConfiguration: Sendable {
    /// How many jobs run at once in all.
    public var workers: Int
    /// Per kind: how many run at once, and whether a job beyond that is refused (`busy`) or queued.
    public var kindLimits: [JobKind: KindLimit]
    /// Progress events per second per job, at most (the first and last value always go out).
    public var progressEventsPerSecond: Double
    /// How many events the resume log keeps.
    public var eventLogSize: Int
    /// Bytes of encoded events the resume log keeps at most (`--event-log-bytes`), whatever their
    /// number: one `log` event of a thousand lines weighs as much as a few hundred progress events,
    /// so a log bounded by count alone follows the traffic's mix. The log keeps encodings only
    /// (`EncodedEvent`), so this is about what it holds.
    public var eventLogBytes = 16 << 20
    /// Seconds between background news fetches; nil: only on demand.
    public var newsInterval: Double?
    /// Whether the benchmark-only `ticker` kind is accepted.
    public var enableTicker: Bool
    /// Finished jobs kept in memory, snapshots and the journal; older ones go to the history archive.
    public var retainedFinishedJobs: Int
    /// Bytes (JSON-encoded) of results that jobs keep for paging (a search's matches), in all
    /// (`--kept-results-bytes`); past it the oldest finished jobs that keep results are forgotten
    /// before the finished jobs number `retainedFinishedJobs`. A kept match costs a few times its
    /// encoding in memory (a dictionary and three values).
    public var keptResultBytes = 4 << 20
    /// Starts' `requestId`s remembered, the newest (`--request-ids`): a start sent again with one of
    /// them answers with the job it made instead of making another.
    public var requestIdsKept = 10_000
    /// Seconds a remote worker may stay silent before its attempts are lost (`--worker-lease`).
    public var workerLeaseSeconds: Double = 30
    /// The cluster node this dispatcher runs jobs for (`herald serve --redis --node NAME`): written
    /// on every job it creates (`node`); nil for a single server.
    public var nodeName: String?
    /// How much history the data folder keeps (the archive's bounds). Read by whoever makes the
    /// `HistoryStore` (`HeraldApp`).
    public var history: HistoryLimits
    /// The jobs file's schedules (docs/schedules.md), fired by the dispatcher's `Scheduler`.
    public var schedules: [ScheduleDeclaration] = []
    /// The jobs file's `notify` entries (docs/webhooks.md), told by the dispatcher's `WebhookNotifier`.
    public var webhooks = WebhookRules()
    /// When failed webhook deliveries are tried again (`--webhook-retry-scale` shortens it).
    public var webhookBackoff = WebhookBackoff()

    public struct KindLimit: Sendable, Equatable {
        public var maxConcurrent: Int
        public var refuseWhenBusy: Bool
        public init(maxConcurrent: Int, refuseWhenBusy: Bool) {
            self.maxConcurrent = maxConcurrent
            self.refuseWhenBusy = refuseWhenBusy
        }
    }

    public init(
        workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount),
        kindLimits: [JobKind: KindLimit] = EngineConfiguration.defaultKindLimits,
        progressEventsPerSecond: Double = 20, eventLogSize: Int = 10_000, newsInterval: Double? = nil,
        enableTicker: Bool = false, retainedFinishedJobs: Int = 500, history: HistoryLimits = HistoryLimits()
    ) {
        self.workers = workers
        self.kindLimits = kindLimits
        self.progressEventsPerSecond = progressEventsPerSecond
        self.eventLogSize = eventLogSize
        self.newsInterval = newsInterval
        self.enableTicker = enableTicker
        self.retainedFinishedJobs = retainedFinishedJobs
        self.history = history
    }

    /// One search at a time, refused beyond it (so every dashboard's Start button tells the truth);
    /// sorts and fetches queue one behind another; tickers (benchmarks) run side by side, as many as
    /// `--workers` allows up to 32 (bench/scoped runs 20 at once).
    public static let defaultKindLimits: [JobKind: KindLimit] = [
        .search: KindLimit(maxConcurrent: 1, refuseWhenBusy: true),
        .sort: KindLimit(maxConcurrent: 1, refuseWhenBusy: false),
        .fetch: KindLimit(maxConcurrent: 1, refuseWhenBusy: false),
        .ticker: KindLimit(maxConcurrent: 32, refuseWhenBusy: false),
    ]

    public func limit(for kind: JobKind) -> KindLimit {
        kindLimits[kind] ?? KindLimit(maxConcurrent: workers, refuseWhenBusy: false)
    }
}
