/// Where a cluster keeps what it shares in Redis, every key under one prefix (`--redis-prefix`,
/// default `herald:`), so several clusters can share one Redis. docs/scaling.md lists them.
public struct ClusterKeys: Sendable, Equatable {
    public let prefix: String

    public init(prefix: String = "herald:") { self.prefix = prefix }

    /// The stream's epoch: a random value set once (`SET NX`); missing or different means the data is gone.
    public var epoch: String { prefix + "epoch" }
    /// The last `seq` handed out (`INCR` in the append script).
    public var seq: String { prefix + "seq" }
    /// The one stream: entry `<seq>-0` with fields `n` (the node that made it) and `e` (its encoding).
    public var events: String { prefix + "events" }
    /// Job id → the job's latest record (JSON).
    public var jobs: String { prefix + "jobs" }
    /// Job id → the seq of its first event: the creation order every node rebuilds.
    public var created: String { prefix + "created" }
    /// Job id → the seq at which it ended: which finished jobs are forgotten first.
    public var finished: String { prefix + "finished" }
    /// Job id → the node that runs it (fencing: only that node may write the job's events).
    public var owner: String { prefix + "owner" }
    /// Job id → its kind, from its admission until its first record is written (so a job whose
    /// node stopped in between can be forgotten, and its kind is not busy for ever).
    public var pending: String { prefix + "pending" }
    /// Node → its attached remote workers (the last `workers` list it sent, JSON).
    public var workers: String { prefix + "workers" }
    /// Node → its last heartbeat (milliseconds, the node's clock).
    public var nodes: String { prefix + "nodes" }
    /// Per-job leases: one entry per job a node holds, pending in the group `holders` under that
    /// node's name, renewed every second; one idle past the lease is taken over (`XAUTOCLAIM`).
    public var leases: String { prefix + "leases" }
    /// Job id → its entry in `leases`.
    public var leaseOf: String { prefix + "leaseof" }
    /// Entry id in `leases` → its job.
    public var leasedJob: String { prefix + "leasedjob" }
    /// The node that fetches news in the background (`--news-interval`), with a lease (`PX`).
    public var newsFetcher: String { prefix + "newsfetcher" }
    /// Node → its pending webhook deliveries (a JSON array, as in its `webhooks/pending.json`), so
    /// another node takes them over when it stops.
    public var webhooks: String { prefix + "webhooks" }
    /// Node → when it last wrote its entry of `webhooks` (milliseconds, the node's clock).
    public var webhooksAt: String { prefix + "webhooksat" }
    /// A schedule's occurrence (epoch seconds), claimed by the node that fires it (`SET NX`, a week).
    public func occurrence(_ schedule: String, _ at: Int64) -> String { prefix + "occurrence:\(schedule):\(at)" }
    /// Job history across the cluster (`GET /api/jobs?…` on any node): every job Redis keeps a record
    /// of, in `jobs` or `archive`, scored by `createdAt` (ties: by id, as Redis orders them).
    public var history: String { prefix + "history" }
    /// Job id → the record of a finished job no longer among the recent ones (`--history-jobs` kept).
    public var archive: String { prefix + "archive" }
    /// Job id → the seq at which it went to `archive`: which archived jobs go first.
    public var archived: String { prefix + "archived" }
    /// Job id → bytes of its kept results (its items' JSON), or -1 once they were dropped to keep
    /// all finished jobs' results under `--kept-results-bytes`.
    public var resultBytes: String { prefix + "resultbytes" }
    /// The sum of `resultBytes`' sizes.
    public var resultBytesTotal: String { prefix + "resultbytestotal" }
    /// Node → the ticket of its last appended batch and the jobs that batch was refused for: a batch
    /// sent again after its answer was lost is recognised and not appended twice.
    public var appended: String { prefix + "appended" }
    /// The cluster's audit trail: every node's audit events, entries with fields `n` (the node) and
    /// `e` (the event's JSON), capped at about `ClusterSettings.auditLength` (`MAXLEN ~`).
    public var audit: String { prefix + "audit" }

    /// The ids of a kind's jobs that have not ended (the busy rule and limits count them).
    public func active(_ kind: String) -> String { prefix + "active:" + kind }
    /// The ids of a kind's jobs started with dependencies that may not run yet: the kind's
    /// `concurrency` holds across the cluster, and `slot` has not given them a place.
    public func gated(_ kind: String) -> String { prefix + "gated:" + kind }
    /// A start's `requestId` → the job it started (a day long at most).
    public func request(_ requestId: String) -> String { prefix + "request:" + requestId }
    /// Every `request(_:)` key's request id, scored by when it was made: the oldest beyond
    /// `ClusterSettings.requestIdsKept` go.
    public var requests: String { prefix + "requests" }
    /// A job's streamed results (search matches), each item's JSON, up to the kept number.
    public func results(_ job: String) -> String { prefix + "results:" + job }
    /// A command job's kept log: its last 10,000 streamed lines, each line's JSON.
    public func log(_ job: String) -> String { prefix + "log:" + job }
    /// How many lines fell off the front of `log(job)`: which line of the output its first one is.
    public func logFirst(_ job: String) -> String { prefix + "logfirst:" + job }
    /// The jobs of a kind waiting for a node with room (consumer group `runners`).
    public func queue(_ kind: String) -> String { prefix + "queue:" + kind }
    /// What other nodes ask of `node` (cancels, pages).
    public func control(_ node: String) -> String { prefix + "control:" + node }
    /// Who asked to cancel a job another node ran (a day long at most): a node that takes the job
    /// over, should its node stop before it read the cancel, cancels it too.
    public func cancelRequest(_ job: String) -> String { prefix + "cancel:" + job }
    /// Where a forwarded page's answer is pushed (a list that expires).
    public func reply(_ token: String) -> String { prefix + "reply:" + token }
}
