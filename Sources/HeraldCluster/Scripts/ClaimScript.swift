import HeraldRedis

/// Takes the oldest job of a kind's queue that is still queued and owned by nobody: it becomes
/// `node`'s (who then runs it, under a lease). Entries of jobs cancelled while they waited are
/// dropped on the way. With a `limit` (> 0: the kind's `concurrency`, for a kind that queues),
/// nothing is taken while that many of the kind's jobs are held, queued or running, anywhere in the
/// cluster: the limit holds across nodes.
/// A job that waits for its dependencies' consent to run (`gated(kind)`) holds no place yet.
/// Returns the job's record, or nil when none waits (or the kind is at its limit).
struct ClaimScript: ClusterScript {
    struct Keys {
        let queue: String
        let owner: String
        let jobs: String
        let leases: String
        let leaseOf: String
        let leasedJob: String
        let active: String
        let gated: String

        init(_ keys: ClusterKeys, kind: String) {
            (queue, owner, jobs, leases) = (keys.queue(kind), keys.owner, keys.jobs, keys.leases)
            (leaseOf, leasedJob, active, gated) = (keys.leaseOf, keys.leasedJob, keys.active(kind), keys.gated(kind))
        }
    }

    struct Args {
        let node: String
        /// The kind's cluster-wide limit; 0: none.
        let limit: Int
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.queue, keys.owner, keys.jobs, keys.leases, keys.leaseOf, keys.leasedJob, keys.active, keys.gated] }
    var argList: [[UInt8]] { [Self.text(args.node), Self.number(args.limit)] }

    static let script = RedisScript(
        name: "claim",
        source: ScriptFunctions.grantLease + ScriptFunctions.held + """
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], 'runners', '0', 'MKSTREAM')
            local limit = tonumber(ARGV[2])
            if limit > 0 and held(KEYS[7], KEYS[2], KEYS[3], KEYS[8], '') >= limit then return false end
            for _ = 1, 16 do
              local got = redis.call('XREADGROUP', 'GROUP', 'runners', ARGV[1], 'COUNT', '1', 'STREAMS', KEYS[1], '>')
              if not got then return false end
              local entry = got[1][2][1]
              local id = entry[2][2]
              redis.call('XACK', KEYS[1], 'runners', entry[1])
              redis.call('XDEL', KEYS[1], entry[1])
              local record = redis.call('HGET', KEYS[3], id)
              if record and not redis.call('HGET', KEYS[2], id) and cjson.decode(record)['state'] == 'queued' then
                redis.call('HSET', KEYS[2], id, ARGV[1])
                grantLease(KEYS[4], KEYS[5], KEYS[6], ARGV[1], id)
                return record
              end
            end
            return false
            """)
}
