import HeraldRedis

/// Takes over the jobs whose lease ran out: in mode `lapsed`, those whose entry nobody renewed for
/// `leaseMilliseconds` (`XAUTOCLAIM` from `cursor`, at most 100, and the ids of entries Redis deleted
/// meanwhile, which Redis 7 lists apart); in mode `own`, this node's own (it restarted under its old
/// name: what it held before is held by nobody now). Each unfinished one becomes `node`'s (so the
/// node that held it can no longer write its events); a job reserved but never written is forgotten
/// (its kind is no longer busy); an ended one's lease just ends.
/// Returns {next cursor, deleted entries, {previous owner, record, …}}.
struct ReclaimScript: ClusterScript {
    struct Keys {
        let leases: String
        let leaseOf: String
        let leasedJob: String
        let owner: String
        let jobs: String
        let pending: String

        init(_ keys: ClusterKeys) {
            (leases, leaseOf, leasedJob, owner, jobs, pending) =
                (keys.leases, keys.leaseOf, keys.leasedJob, keys.owner, keys.jobs, keys.pending)
        }
    }

    /// Which leases it takes over.
    enum Mode: String {
        /// Any node's, idle past the lease.
        case lapsed
        /// This node's own, at its start.
        case own
    }

    struct Args {
        let node: String
        let leaseMilliseconds: Int64
        let mode: Mode
        /// Where `XAUTOCLAIM` goes on from (`0-0` at first).
        let cursor: String
        /// The key prefix, for `active:<kind>` and `gated:<kind>` of the jobs it finds.
        let prefix: String
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.leases, keys.leaseOf, keys.leasedJob, keys.owner, keys.jobs, keys.pending] }

    var argList: [[UInt8]] {
        [
            Self.text(args.node), Self.number(args.leaseMilliseconds), Self.text(args.mode.rawValue), Self.text(args.cursor),
            Self.text(args.prefix),
        ]
    }

    static let script = RedisScript(
        name: "reclaim",
        source: ScriptFunctions.grantLease + """
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], 'holders', '0', 'MKSTREAM')
            local node = ARGV[1]
            local taken = {}
            local function settle(job, deleted)
              local record = redis.call('HGET', KEYS[5], job)
              if not record then
                local kind = redis.call('HGET', KEYS[6], job)
                if kind then redis.call('SREM', ARGV[5] .. 'active:' .. kind, job) end
                redis.call('HDEL', KEYS[6], job)
                redis.call('HDEL', KEYS[4], job)
                dropLease(KEYS[1], KEYS[2], KEYS[3], job)
                return
              end
              local state = cjson.decode(record)['state']
              if state ~= 'queued' and state ~= 'waiting' and state ~= 'running' then
                dropLease(KEYS[1], KEYS[2], KEYS[3], job)
                return
              end
              local owner = redis.call('HGET', KEYS[4], job)
              if deleted then grantLease(KEYS[1], KEYS[2], KEYS[3], node, job) end
              -- Lapsed but already this node's (its renewal was late): it keeps running here.
              if owner == node and ARGV[3] == 'lapsed' then return end
              redis.call('HSET', KEYS[4], job, node)
              -- Its new node runs it as a job taken from the queue: it holds a place from now on.
              redis.call('SREM', ARGV[5] .. 'gated:' .. cjson.decode(record)['kind'], job)
              taken[#taken + 1] = owner or ''
              taken[#taken + 1] = record
            end
            local next = '0-0'
            local entries = {}
            local deleted = {}
            if ARGV[3] == 'own' then
              for _, pending in ipairs(redis.call('XPENDING', KEYS[1], 'holders', '-', '+', 5000, node)) do
                entries[#entries + 1] = pending[1]
              end
            else
              local got = redis.call('XAUTOCLAIM', KEYS[1], 'holders', node, ARGV[2], ARGV[4], 'COUNT', 100, 'JUSTID')
              next = got[1]
              entries = got[2]
              deleted = got[3] or {}
            end
            for _, entry in ipairs(entries) do
              local job = redis.call('HGET', KEYS[3], entry)
              if job then
                settle(job, false)
              else
                redis.call('XACK', KEYS[1], 'holders', entry)
                redis.call('XDEL', KEYS[1], entry)
              end
            end
            for _, entry in ipairs(deleted) do
              local job = redis.call('HGET', KEYS[3], entry)
              if job then
                redis.call('HDEL', KEYS[3], entry)
                redis.call('HDEL', KEYS[2], job)
                settle(job, true)
              end
            end
            return {next, #deleted, taken}
            """)
}
