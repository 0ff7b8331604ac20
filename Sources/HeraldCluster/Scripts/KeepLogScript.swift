import HeraldEngine
import HeraldRedis

/// Puts a finished job's whole kept log in place of the lines its `log` events carried (a flood
/// skipped some from the stream). Nothing when the job's record is gone (pruned: its log went with
/// it, and must not come back). Lines go in a thousand at a time (Lua's `unpack` limit).
/// Returns 1 when written, 0 when the job is gone.
struct KeepLogScript: ClusterScript {
    struct Keys {
        let log: String
        let logFirst: String
        let jobs: String

        init(_ keys: ClusterKeys, job: JobID) { (log, logFirst, jobs) = (keys.log(job.rawValue), keys.logFirst(job.rawValue), keys.jobs) }
    }

    struct Args {
        let job: JobID
        /// The number of the log's first kept line.
        let first: Int
        /// The lines (JSON each): ARGV's variadic tail.
        let lines: [[UInt8]]
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.log, keys.logFirst, keys.jobs] }
    var argList: [[UInt8]] { [Self.text(args.job.rawValue), Self.number(args.first)] + args.lines }

    static let script = RedisScript(
        name: "keepLog",
        source: """
            if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 0 then return 0 end
            redis.call('DEL', KEYS[1])
            for i = 3, #ARGV, 1000 do
              redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(#ARGV, i + 999)))
            end
            redis.call('SET', KEYS[2], ARGV[2])
            return 1
            """)
}
