import HeraldRedis

/// Takes a stopped node's pending webhook deliveries: when neither its heartbeat (`nodes`, absent
/// once it was forgotten) nor its last copy of them (`webhooksAt`) is newer than `staleBefore`, it
/// returns their JSON and removes them, so exactly one node takes them over; else nil (the node is
/// alive, or just started and has not beaten yet, or another node took them first).
struct TakeOverDeliveriesScript: ClusterScript {
    struct Keys {
        let nodes: String
        let webhooks: String
        let webhooksAt: String

        init(_ keys: ClusterKeys) { (nodes, webhooks, webhooksAt) = (keys.nodes, keys.webhooks, keys.webhooksAt) }
    }

    struct Args {
        let node: String
        let staleBefore: Int64
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.nodes, keys.webhooks, keys.webhooksAt] }
    var argList: [[UInt8]] { [Self.text(args.node), Self.number(args.staleBefore)] }

    static let script = RedisScript(
        name: "takeOverDeliveries",
        source: """
            local staleBefore = tonumber(ARGV[2])
            local heard = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
            local written = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
            if heard >= staleBefore or written >= staleBefore then return false end
            local deliveries = redis.call('HGET', KEYS[2], ARGV[1])
            redis.call('HDEL', KEYS[2], ARGV[1])
            redis.call('HDEL', KEYS[3], ARGV[1])
            return deliveries
            """)
}
