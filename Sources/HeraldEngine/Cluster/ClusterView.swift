/// What every node of a cluster knows of the whole cluster, rebuilt from the one shared stream: every
/// job's latest record, the news, each node's workers, and the recent events for resumes.
///
/// Every node applies the same entries in the same order to the same bootstrap, so every node holds
/// the same view and encodes the same bytes for each event: that is what makes two viewers on two
/// nodes receive identical streams. The one event it rewrites is `workers`: a node reports only its
/// own workers, and viewers expect all of them, so the view answers with the merged list.
///
/// A plain value owned by its node's view queue (`ClusterEngine`).
public struct ClusterView: Sendable {
    public private(set) var epoch: String
    public private(set) var seq: Int64
    private var jobs: [JobID: JobRecord] = [:]
    /// Job ids in creation order (the order of their first event).
    private var order: [JobID] = []
    /// Finished job ids in the order they ended: the oldest are forgotten first, as in Redis.
    private var finishedOrder: [JobID] = []
    public private(set) var news: NewsFeed
    private var workersByNode: [String: [WorkerInfo]]
    private var log: EventLog
    /// Finished jobs kept beyond the running ones (the cluster keeps the same number in Redis).
    public let retainedFinishedJobs: Int

    /// A view at `seq` of `epoch`, from what a bootstrap read atomically: the records in creation
    /// order, the finished ids in the order they ended, every node's workers.
    public init(
        epoch: String, seq: Int64, jobs: [JobRecord], finished: [JobID] = [], workersByNode: [String: [WorkerInfo]] = [:],
        eventLogSize: Int = 10_000, eventLogBytes: Int = 16 << 20, retainedFinishedJobs: Int = 500, newsCapacity: Int = 200
    ) {
        self.epoch = epoch
        self.seq = seq
        self.news = NewsFeed(capacity: newsCapacity)
        self.workersByNode = workersByNode
        self.log = EventLog(capacity: max(1, eventLogSize), maxBytes: eventLogBytes)
        self.retainedFinishedJobs = retainedFinishedJobs
        for record in jobs where self.jobs.updateValue(record, forKey: record.id) == nil {
            order.append(record.id)
        }
        finishedOrder = finished.filter { self.jobs[$0]?.state.isTerminal == true }
    }

    /// The next entry of the stream, made by `node`: updates the view and returns the event as every
    /// node delivers it. The caller checked that `seq` is the next one (`ClusterTail`).
    public mutating func apply(seq: Int64, ts: Int64, node: String, event: EngineEvent) -> SequencedEvent {
        precondition(seq == self.seq + 1, "the view takes the stream's entries one by one, in order")
        self.seq = seq
        var delivered = event
        switch event {
        case .job(let record):
            let before = jobs.updateValue(record, forKey: record.id)
            if before == nil { order.append(record.id) }
            if record.state.isTerminal, before?.state.isTerminal != true {
                finishedOrder.append(record.id)
                forgetOldJobs()
            }
        case .progress(let job, let progress):
            jobs[job]?.progress = progress
        case .news(let revision, let items):
            news.adopt(revision: revision, items: items)
        case .workers(let workers):
            workersByNode[node] = workers.isEmpty ? nil : workers
            delivered = .workers(allWorkers)
        case .results, .log:
            break
        }
        let sequenced = SequencedEvent(seq: seq, ts: ts, event: delivered)
        log.append(sequenced)
        return sequenced
    }

    /// Finished job ids in the order they ended (what Redis keeps as `finished`).
    public var finishedJobIDs: [JobID] { finishedOrder }

    /// Each node's workers, as its last `workers` event said (what Redis keeps as `workers`).
    public var workersOfNodes: [String: [WorkerInfo]] { workersByNode }

    /// Every node's workers, by node name then worker name.
    public var allWorkers: [WorkerInfo] {
        workersByNode.keys.sorted().flatMap { workersByNode[$0] ?? [] }
    }

    public func job(_ id: JobID) -> JobRecord? { jobs[id] }

    public var allJobs: [JobRecord] { order.compactMap { jobs[$0] } }

    /// The whole view now; `limits` are the serving node's (its kinds and settings).
    public func snapshot(limits: JSONObject) -> Snapshot {
        Snapshot(epoch: epoch, seq: seq, jobs: allJobs, news: news, limits: limits, workers: allWorkers)
    }

    /// The events after `since` in `epoch`, or nil when this node no longer (or never) held them all.
    public func events(after since: Int64, epoch: String) -> [EncodedEvent]? {
        guard epoch == self.epoch else { return nil }
        return log.events(after: since, currentSeq: seq)
    }

    /// The oldest seq this node can resume from by itself (older ones come from Redis).
    public var oldestKeptSeq: Int64? { log.oldestSeq }

    /// Keeps the newest `retainedFinishedJobs` finished jobs, forgetting those that ended first
    /// (the append script forgets the same ones in Redis).
    private mutating func forgetOldJobs() {
        let excess = finishedOrder.count - retainedFinishedJobs
        guard excess > 0 else { return }
        let dropped = Set(finishedOrder.prefix(excess))
        finishedOrder.removeFirst(excess)
        order.removeAll { dropped.contains($0) }
        for id in dropped { jobs.removeValue(forKey: id) }
    }
}
