/// A cluster node's figures for `/metrics` and `/healthz` (`herald serve --redis`). A value.
public struct ClusterStatistics: Sendable, Equatable {
    public var node: String
    /// The last round trip of the publisher's append pipeline to Redis, in seconds.
    public var redisRoundTripSeconds: Double = 0
    /// How far behind the shared stream this node's view was at its last entry: the time from the
    /// event's `ts` to this node applying it, in seconds.
    public var streamLagSeconds: Double = 0
    /// Jobs this node took over from a node that stopped renewing their leases.
    public var reclaims = 0
    /// Lease entries Redis reported deleted while a job was held (`XAUTOCLAIM`'s third answer: the
    /// stream entry was removed by hand or trimmed); their jobs were taken over all the same.
    public var deletedLeaseEntries = 0
    /// Page requests this node sent to another node, and those it answered for another node.
    public var pagesForwarded = 0
    public var pagesServedForOthers = 0
    /// Writes Redis refused because this node no longer held the job (fencing).
    public var staleWrites = 0
    /// Times this node found the stream under a new epoch (Redis lost its data).
    public var epochResets = 0
    /// Events waiting to be appended to the shared stream.
    public var publishBacklog = 0
    /// Progress, log and results events dropped because too many waited (Redis away or too slow).
    public var eventsShed = 0
    /// Audit events waiting to be appended to the shared audit stream.
    public var auditBacklog = 0
    /// Audit events dropped from the shared audit because too many waited for Redis (each is still
    /// in the node's own `audit.jsonl`).
    public var auditDropped = 0

    public init(node: String) { self.node = node }
}
