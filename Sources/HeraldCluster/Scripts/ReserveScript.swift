import HeraldEngine
import HeraldRedis

/// Admits a start with dependencies across the cluster, run by the node that took it: a repeated
/// `requestId` answers with the job it started; a kind with the busy rule refuses while `busyLimit`
/// of its jobs have not ended; else the job is counted active, owned by this node, and held under a
/// lease. Two starts on two nodes at the same instant: one wins.
/// A job of a kind whose `concurrency` holds across the cluster (`gated`) is also put in
/// `gated(kind)`: it runs only once `slot` lets it (its node asks when its dependencies are met).
/// Returns {'ok', id} | {'existing', id, record|false} | {'busy', id of an active job}.
struct ReserveScript: ClusterScript {
    struct Keys {
        let active: String
        let owner: String
        /// `request(requestId)`, else a request key no start has (`request:-`).
        let request: String
        let jobs: String
        let pending: String
        let leases: String
        let leaseOf: String
        let leasedJob: String
        let gated: String
        let requests: String

        init(_ keys: ClusterKeys, kind: String, requestId: String?) {
            (active, owner, request, jobs, pending) =
                (keys.active(kind), keys.owner, keys.request(requestId ?? "-"), keys.jobs, keys.pending)
            (leases, leaseOf, leasedJob, gated, requests) = (keys.leases, keys.leaseOf, keys.leasedJob, keys.gated(kind), keys.requests)
        }
    }

    struct Args {
        let job: JobID
        let node: String
        /// How many of the kind's jobs may be active at once (the busy rule); 0: no such rule.
        let busyLimit: Int
        let requestId: String?
        let kind: String
        /// The kind's `concurrency` holds across the cluster: the job waits for `slot`.
        let gated: Bool
        /// `request("")`: what the keys of forgotten request ids begin with.
        let requestKeyPrefix: String
        let requestIdsKept: Int
    }

    let keys: Keys
    let args: Args

    var keyList: [String] {
        [
            keys.active, keys.owner, keys.request, keys.jobs, keys.pending, keys.leases, keys.leaseOf, keys.leasedJob, keys.gated,
            keys.requests,
        ]
    }

    var argList: [[UInt8]] {
        [
            Self.text(args.job.rawValue), Self.text(args.node), Self.number(args.busyLimit), Self.text(args.requestId ?? ""),
            Self.text(args.kind), Self.flag(args.gated), Self.text(args.requestKeyPrefix), Self.number(args.requestIdsKept),
        ]
    }

    static let script = RedisScript(
        name: "reserve",
        source: ScriptFunctions.grantLease + ScriptFunctions.rememberRequest + """
            if ARGV[4] ~= '' then
              local existing = redis.call('GET', KEYS[3])
              if existing then return {'existing', existing, redis.call('HGET', KEYS[4], existing)} end
            end
            local limit = tonumber(ARGV[3])
            if limit > 0 and redis.call('SCARD', KEYS[1]) >= limit then
              return {'busy', redis.call('SRANDMEMBER', KEYS[1])}
            end
            redis.call('SADD', KEYS[1], ARGV[1])
            if ARGV[6] == '1' then redis.call('SADD', KEYS[9], ARGV[1]) end
            redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
            redis.call('HSET', KEYS[5], ARGV[1], ARGV[5])
            grantLease(KEYS[6], KEYS[7], KEYS[8], ARGV[2], ARGV[1])
            if ARGV[4] ~= '' then rememberRequest(KEYS[3], KEYS[10], ARGV[4], ARGV[1], ARGV[7], ARGV[8]) end
            return {'ok', ARGV[1]}
            """)
}
