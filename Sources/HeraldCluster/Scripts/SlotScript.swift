import HeraldEngine
import HeraldRedis

/// Lets a gated job (a start with dependencies, of a kind whose `concurrency` holds across the
/// cluster) run now that its dependencies are met: when fewer than `limit` of the kind's other jobs
/// hold a place, it leaves `gated(kind)` and holds one. Gated entries of jobs that ended are dropped
/// on the way.
/// Returns 1 (run it) or 0 (not yet: asked again when a job of the kind ends).
struct SlotScript: ClusterScript {
    struct Keys {
        let active: String
        let owner: String
        let jobs: String
        let gated: String

        init(_ keys: ClusterKeys, kind: String) {
            (active, owner, jobs, gated) = (keys.active(kind), keys.owner, keys.jobs, keys.gated(kind))
        }
    }

    struct Args {
        let job: JobID
        let limit: Int
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.active, keys.owner, keys.jobs, keys.gated] }
    var argList: [[UInt8]] { [Self.text(args.job.rawValue), Self.number(args.limit)] }

    static let script = RedisScript(
        name: "slot",
        source: ScriptFunctions.held + """
            for _, id in ipairs(redis.call('SMEMBERS', KEYS[4])) do
              if redis.call('SISMEMBER', KEYS[1], id) == 0 then redis.call('SREM', KEYS[4], id) end
            end
            if redis.call('SISMEMBER', KEYS[4], ARGV[1]) == 0 then return 1 end
            if held(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1]) >= tonumber(ARGV[2]) then return 0 end
            redis.call('SREM', KEYS[4], ARGV[1])
            return 1
            """)
}
