import HeraldEngine
import HeraldRedis

/// Makes a job this node's again after a new epoch (Redis lost its data): owned, active, held.
struct HoldScript: ClusterScript {
    struct Keys {
        let owner: String
        let active: String
        let leases: String
        let leaseOf: String
        let leasedJob: String

        init(_ keys: ClusterKeys, kind: String) {
            (owner, active, leases, leaseOf, leasedJob) = (keys.owner, keys.active(kind), keys.leases, keys.leaseOf, keys.leasedJob)
        }
    }

    struct Args {
        let job: JobID
        let node: String
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.owner, keys.active, keys.leases, keys.leaseOf, keys.leasedJob] }
    var argList: [[UInt8]] { [Self.text(args.job.rawValue), Self.text(args.node)] }

    static let script = RedisScript(
        name: "hold",
        source: ScriptFunctions.grantLease + """
            redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
            redis.call('SADD', KEYS[2], ARGV[1])
            grantLease(KEYS[3], KEYS[4], KEYS[5], ARGV[2], ARGV[1])
            return 1
            """)
}
