/// The whole state at one point of the stream: a subscriber applies it, then every event after `seq`.
public struct Snapshot: Sendable {
    public let epoch: String
    public let seq: Int64
    public let jobs: [JobRecord]
    public let news: NewsFeed
    public let limits: JSONObject
    /// The connected workers (docs/workers.md).
    public let workers: [WorkerInfo]

    public init(epoch: String, seq: Int64, jobs: [JobRecord], news: NewsFeed, limits: JSONObject, workers: [WorkerInfo] = []) {
        self.workers = workers
        self.epoch = epoch
        self.seq = seq
        self.jobs = jobs
        self.news = news
        self.limits = limits
    }
}
