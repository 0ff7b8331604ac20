import HeraldRedis

/// Copies a node's pending webhook deliveries into Redis (`webhooks`: node → their JSON) with when it
/// did (`webhooksAt`: node → milliseconds, the node's clock), or removes both when it has none, so
/// that another node can take them over if this one stops (`takeOverDeliveries`).
struct MirrorDeliveriesScript: ClusterScript {
    struct Keys {
        let webhooks: String
        let webhooksAt: String

        init(_ keys: ClusterKeys) { (webhooks, webhooksAt) = (keys.webhooks, keys.webhooksAt) }
    }

    struct Args {
        let node: String
        let milliseconds: Int64
        /// The deliveries as a JSON array; empty: the node has none pending.
        let deliveries: [UInt8]
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.webhooks, keys.webhooksAt] }
    var argList: [[UInt8]] { [Self.text(args.node), Self.number(args.milliseconds), args.deliveries] }

    static let script = RedisScript(
        name: "mirrorDeliveries",
        source: """
            if ARGV[3] == '' then
              redis.call('HDEL', KEYS[1], ARGV[1])
              redis.call('HDEL', KEYS[2], ARGV[1])
            else
              redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
              redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
            end
            return 1
            """)
}
