import HeraldRedis

/// Adds a request to a node's control stream and drops those older than `keptMilliseconds` by
/// Redis's own clock (`MINID`, exact: a few entries a second): a stream that every cancel and
/// forwarded page adds to keeps a minute of them, not a count a quiet cluster takes days to reach.
/// Returns the entry's id.
struct ControlScript: ClusterScript {
    struct Keys {
        /// `control(node)` of the node asked.
        let control: String
    }

    struct Args {
        let keptMilliseconds: Int
        /// The entry's fields (name, value, …): ARGV's variadic tail.
        let fields: [String]
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.control] }
    var argList: [[UInt8]] { [Self.number(args.keptMilliseconds)] + args.fields.map(Self.text) }

    static let script = RedisScript(
        name: "control",
        source: """
            local now = redis.call('TIME')
            local oldest = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - tonumber(ARGV[1])
            return redis.call('XADD', KEYS[1], 'MINID', string.format('%d', math.max(0, oldest)), '*', unpack(ARGV, 2))
            """)
}
