import HeraldEngine
import HeraldRedis

/// Admits a start into the cluster's queue of its kind: a repeated `requestId` answers with the job
/// it started; a kind with the busy rule refuses while `busyLimit` of its jobs have not ended; else
/// the job's `queued` record and event are written (its `seq` given here) and its id is added to
/// `queue:<kind>`, where any node with room takes it (`claim`). No node owns it until then.
/// Returns {'ok', id, seq} | {'existing', id, record|false} | {'busy', id of an active job}, or an
/// error `EPOCH …`.
struct AdmitScript: ClusterScript {
    struct Keys {
        let active: String
        /// `request(requestId)`, else a request key no start has (`request:-`).
        let request: String
        let jobs: String
        let epoch: String
        let seq: String
        let events: String
        let created: String
        let queue: String
        let history: String
        let requests: String

        init(_ keys: ClusterKeys, kind: String, requestId: String?) {
            (active, request, jobs, epoch, seq) = (keys.active(kind), keys.request(requestId ?? "-"), keys.jobs, keys.epoch, keys.seq)
            (events, created, queue, history, requests) = (keys.events, keys.created, keys.queue(kind), keys.history, keys.requests)
        }
    }

    struct Args {
        let job: JobID
        /// How many of the kind's jobs may be active at once (the busy rule); 0: no such rule.
        let busyLimit: Int
        let requestId: String?
        let epoch: String
        /// The `queued` event's encoding.
        let encoding: [UInt8]
        /// The `queued` record (JSON).
        let record: [UInt8]
        let maxLength: Int
        let node: String
        let createdAt: Int64
        /// `request("")`: what the keys of forgotten request ids begin with.
        let requestKeyPrefix: String
        let requestIdsKept: Int
    }

    let keys: Keys
    let args: Args

    var keyList: [String] {
        [keys.active, keys.request, keys.jobs, keys.epoch, keys.seq, keys.events, keys.created, keys.queue, keys.history, keys.requests]
    }

    var argList: [[UInt8]] {
        [
            Self.text(args.job.rawValue), Self.number(args.busyLimit), Self.text(args.requestId ?? ""), Self.text(args.epoch),
            args.encoding, args.record, Self.number(args.maxLength), Self.text(args.node), Self.number(args.createdAt),
            Self.text(args.requestKeyPrefix), Self.number(args.requestIdsKept),
        ]
    }

    static let script = RedisScript(
        name: "admit",
        source: ScriptFunctions.rememberRequest + """
            if redis.call('GET', KEYS[4]) ~= ARGV[4] then
              return redis.error_reply('EPOCH the stream has a new epoch')
            end
            if ARGV[3] ~= '' then
              local existing = redis.call('GET', KEYS[2])
              if existing then return {'existing', existing, redis.call('HGET', KEYS[3], existing)} end
            end
            local limit = tonumber(ARGV[2])
            if limit > 0 and redis.call('SCARD', KEYS[1]) >= limit then
              return {'busy', redis.call('SRANDMEMBER', KEYS[1])}
            end
            redis.call('SADD', KEYS[1], ARGV[1])
            if ARGV[3] ~= '' then rememberRequest(KEYS[2], KEYS[10], ARGV[3], ARGV[1], ARGV[10], ARGV[11]) end
            local seq = redis.call('INCR', KEYS[5])
            redis.call('XADD', KEYS[6], 'MINID', '~', string.format('%d', math.max(0, seq - tonumber(ARGV[7]))),
              seq .. '-0', 'n', ARGV[8], 'e', ARGV[5])
            redis.call('HSET', KEYS[3], ARGV[1], ARGV[6])
            redis.call('ZADD', KEYS[7], 'NX', seq, ARGV[1])
            redis.call('ZADD', KEYS[9], 'NX', ARGV[9], ARGV[1])
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[8], 'runners', '0', 'MKSTREAM')
            redis.call('XADD', KEYS[8], '*', 'j', ARGV[1])
            return {'ok', ARGV[1], seq}
            """)
}
