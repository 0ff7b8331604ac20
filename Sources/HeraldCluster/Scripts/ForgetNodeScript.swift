import HeraldRedis

/// Forgets a node that stopped (no heartbeat for `timeoutMilliseconds` of Redis's time, the clock
/// heartbeats are written with: `RenewScript`), unless it came back meanwhile:
/// its heartbeat goes, and when it had workers attached, an empty `workers` event (`encoding`) is
/// appended in its name, so every view drops them (its workers' connections died with it).
/// Returns 1 when it forgot the node, else 0, or an error `EPOCH …`.
struct ForgetNodeScript: ClusterScript {
    struct Keys {
        let nodes: String
        let workers: String
        let epoch: String
        let seq: String
        let events: String

        init(_ keys: ClusterKeys) { (nodes, workers, epoch, seq, events) = (keys.nodes, keys.workers, keys.epoch, keys.seq, keys.events) }
    }

    struct Args {
        let node: String
        let timeoutMilliseconds: Int64
        let epoch: String
        let encoding: [UInt8]
        let maxLength: Int
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.nodes, keys.workers, keys.epoch, keys.seq, keys.events] }

    var argList: [[UInt8]] {
        [Self.text(args.node), Self.number(args.timeoutMilliseconds), Self.text(args.epoch), args.encoding, Self.number(args.maxLength)]
    }

    static let script = RedisScript(
        name: "forgetNode",
        source: """
            if redis.call('GET', KEYS[3]) ~= ARGV[3] then
              return redis.error_reply('EPOCH the stream has a new epoch')
            end
            local time = redis.call('TIME')
            local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
            local heard = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
            if heard >= now - tonumber(ARGV[2]) then return 0 end
            redis.call('HDEL', KEYS[1], ARGV[1])
            if redis.call('HDEL', KEYS[2], ARGV[1]) == 1 then
              local seq = redis.call('INCR', KEYS[4])
              redis.call('XADD', KEYS[5], 'MINID', '~', string.format('%d', math.max(0, seq - tonumber(ARGV[5]))),
                seq .. '-0', 'n', ARGV[1], 'e', ARGV[4])
            end
            return 1
            """)
}
