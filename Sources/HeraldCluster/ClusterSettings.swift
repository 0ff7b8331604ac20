import HeraldRedis

/// How a node joins a cluster (`herald serve --redis URL [--node NAME] [--redis-prefix P]`).
public struct ClusterSettings: Sendable {
    public var address: RedisAddress
    /// This node's name: unique in the cluster, shown on its jobs (`node`), the name other nodes
    /// address its control stream by.
    public var node: String
    public var keys: ClusterKeys
    /// About how many events the shared stream keeps (`MINID ~`): how far back a viewer can resume
    /// from any node. `--event-log-size`.
    public var streamLength: Int
    /// Finished jobs kept in Redis and in every node's view.
    public var retainedFinishedJobs: Int
    /// Finished jobs kept in Redis's archive beyond the recent ones, for history (`--history-jobs`).
    public var historyJobs: Int = 100_000
    /// Search matches kept per job in Redis for pages (`--max-results`).
    public var maxResults: Int = 1000
    /// All finished jobs' kept results in Redis, in bytes of JSON (`--kept-results-bytes`; 0: no bound).
    public var keptResultBytes: Int = 4 << 20
    /// A command job's log lines kept in Redis for pages (the newest ones), as a node keeps them.
    public var keptLogLines: Int = 10_000
    /// Starts' `requestId`s remembered (the newest), so a start sent again makes no second job; a
    /// single server keeps as many.
    public var requestIdsKept: Int = 10_000
    /// About how many audit events the cluster's shared audit stream keeps (`MAXLEN ~`), every
    /// node's together (`--audit-stream-size`); each node's own `audit.jsonl` keeps its own for longer.
    public var auditLength: Int = 100_000
    /// A forwarded page request waits this long for the node that holds the job.
    public var forwardTimeoutSeconds: Double
    /// A node's lease (`--node-lease`): a node whose heartbeat is older than this is taken as stopped;
    /// another node takes its unfinished jobs over, and its pages are `unavailable`.
    public var nodeTimeoutSeconds: Double

    public init(
        address: RedisAddress, node: String, keys: ClusterKeys = ClusterKeys(), streamLength: Int = 10_000,
        retainedFinishedJobs: Int = 500, forwardTimeoutSeconds: Double = 1, nodeTimeoutSeconds: Double = 10
    ) {
        self.address = address
        self.node = node
        self.keys = keys
        self.streamLength = streamLength
        self.retainedFinishedJobs = retainedFinishedJobs
        self.forwardTimeoutSeconds = forwardTimeoutSeconds
        self.nodeTimeoutSeconds = nodeTimeoutSeconds
    }

    /// Node names go into Redis keys and job records: letters, digits, `-`, `_`, `.`, 1 to 64 bytes.
    public static func isValidNodeName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
                    || byte == 0x5F || byte == 0x2E
            }
    }
}
