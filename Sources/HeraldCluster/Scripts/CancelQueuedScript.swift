import HeraldEngine
import HeraldRedis

/// Cancels a job that waits in its kind's queue, owned by nobody: its `cancelled` record and event
/// are written here. A job a node took meanwhile is that node's to cancel (`owned`).
/// Returns 'ok', 'owned' or 'gone' (no longer queued), or an error `EPOCH …`.
struct CancelQueuedScript: ClusterScript {
    struct Keys {
        let owner: String
        let jobs: String
        let active: String
        let epoch: String
        let seq: String
        let events: String
        let finished: String

        init(_ keys: ClusterKeys, kind: String) {
            (owner, jobs, active, epoch) = (keys.owner, keys.jobs, keys.active(kind), keys.epoch)
            (seq, events, finished) = (keys.seq, keys.events, keys.finished)
        }
    }

    struct Args {
        let job: JobID
        let epoch: String
        /// The `cancelled` event's encoding.
        let encoding: [UInt8]
        /// The `cancelled` record (JSON).
        let record: [UInt8]
        let node: String
        let maxLength: Int
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.owner, keys.jobs, keys.active, keys.epoch, keys.seq, keys.events, keys.finished] }

    var argList: [[UInt8]] {
        [
            Self.text(args.job.rawValue), Self.text(args.epoch), args.encoding, args.record, Self.text(args.node),
            Self.number(args.maxLength),
        ]
    }

    static let script = RedisScript(
        name: "cancelQueued",
        source: """
            if redis.call('GET', KEYS[4]) ~= ARGV[2] then
              return redis.error_reply('EPOCH the stream has a new epoch')
            end
            if redis.call('HGET', KEYS[1], ARGV[1]) then return 'owned' end
            local record = redis.call('HGET', KEYS[2], ARGV[1])
            if not record or cjson.decode(record)['state'] ~= 'queued' then return 'gone' end
            local seq = redis.call('INCR', KEYS[5])
            redis.call('XADD', KEYS[6], 'MINID', '~', string.format('%d', math.max(0, seq - tonumber(ARGV[6]))),
              seq .. '-0', 'n', ARGV[5], 'e', ARGV[3])
            redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
            redis.call('SREM', KEYS[3], ARGV[1])
            redis.call('ZADD', KEYS[7], 'NX', seq, ARGV[1])
            return 'ok'
            """)
}
