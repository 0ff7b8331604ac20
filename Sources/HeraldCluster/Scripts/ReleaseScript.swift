import HeraldEngine
import HeraldRedis

/// Undoes a reservation (`ReserveScript`) whose start the node then refused (bad params, unknown
/// dependency).
struct ReleaseScript: ClusterScript {
    struct Keys {
        let active: String
        let owner: String
        /// `request(requestId)`, else a request key no start has (`request:-`).
        let request: String
        let pending: String
        let leases: String
        let leaseOf: String
        let leasedJob: String
        let gated: String

        init(_ keys: ClusterKeys, kind: String, requestId: String?) {
            (active, owner, request, pending) = (keys.active(kind), keys.owner, keys.request(requestId ?? "-"), keys.pending)
            (leases, leaseOf, leasedJob, gated) = (keys.leases, keys.leaseOf, keys.leasedJob, keys.gated(kind))
        }
    }

    struct Args {
        let job: JobID
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.active, keys.owner, keys.request, keys.pending, keys.leases, keys.leaseOf, keys.leasedJob, keys.gated] }
    var argList: [[UInt8]] { [Self.text(args.job.rawValue)] }

    static let script = RedisScript(
        name: "release",
        source: ScriptFunctions.dropLease + """
            dropLease(KEYS[5], KEYS[6], KEYS[7], ARGV[1])
            redis.call('SREM', KEYS[1], ARGV[1])
            redis.call('SREM', KEYS[8], ARGV[1])
            redis.call('HDEL', KEYS[2], ARGV[1])
            redis.call('HDEL', KEYS[4], ARGV[1])
            if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
            return 1
            """)
}
