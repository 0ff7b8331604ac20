/// Counters the dispatcher keeps for `/metrics`. A plain value owned by the dispatcher queue;
/// readers get a copy.
public struct EngineStatistics: Sendable, Equatable {
    /// Finished jobs by kind and final state.
    public var finished: [String: Int] = [:]
    /// Job durations in seconds: counts per upper bound (`durationBounds`), plus sum and count.
    public var durationBuckets: [Int] = Array(repeating: 0, count: EngineStatistics.durationBounds.count)
    public var durationSum: Double = 0
    public var durationCount = 0
    /// Progress samples held back by the rate bound.
    public var progressCoalesced = 0
    public var progressEvents = 0
    /// Failed attempts that were retried.
    public var retries = 0
    public var jobsRunning = 0
    /// Remote workers attached now, and attempts lost because a worker went silent or away.
    public var workersConnected = 0
    public var leasesLost = 0
    /// Worker reports refused because they were about an attempt the worker no longer held.
    public var staleReports = 0
    public var seq: Int64 = 0
    /// The sort data on disk (`--sort-cache-bytes`), as the sort cache last published it.
    public var sortCache = SortCacheFigures()
    /// The stream's epoch now, where it can change while the server runs (a cluster node's, after
    /// Redis lost its data); nil: the engine's fixed `epoch`.
    public var epoch: String?
    /// Why the server is degraded now: a cluster node cannot reach Redis (it takes no starts or
    /// cancels then), or files cannot be written to the data folder (a full disk: jobs go on, what
    /// they write waits in memory); nil when neither. `/healthz` answers 503 `degraded` with it.
    public var degraded: String?
    /// Writes to the data folder that failed since the start (history, archive, logs).
    public var storageWriteFailures = 0
    /// Whether some write to the data folder fails now.
    public var storageFailing = false
    /// The schedules' counts (occurrences fired, skipped, missed) and last lateness.
    public var schedules: [ScheduleStatus] = []
    /// Webhook deliveries delivered, attempts retried, deliveries given up, since the start.
    public var webhooks = WebhookCounts()
    /// What the allocator holds, for `/metrics` only (`EngineRequest.metrics`); nil otherwise, or
    /// where malloc is not glibc's.
    public var heap: HeapFigures?
    /// A cluster node's figures (`herald serve --redis`); nil for a single server.
    public var cluster: ClusterStatistics?

    public init() {}

    public static let durationBounds: [Double] = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, .infinity]

    public static func finishedKey(kind: JobKind, state: JobState) -> String { "\(kind.rawValue)/\(state.rawValue)" }

    mutating func recordFinish(kind: JobKind, state: JobState, seconds: Double?) {
        finished[Self.finishedKey(kind: kind, state: state), default: 0] += 1
        guard let seconds else { return }
        durationSum += seconds
        durationCount += 1
        for (index, bound) in Self.durationBounds.enumerated() where seconds <= bound {
            durationBuckets[index] += 1
        }
    }
}
