import HeraldRedis

/// Renews every lease this node holds (`XCLAIM` to itself with no minimum idle time sets each
/// entry's idle time to zero) and beats its heartbeat (`nodes`: node → milliseconds, which says the
/// node is alive to page forwarding and to a second node starting under the same name). The
/// heartbeat is Redis's time (`TIME`), the one clock every node reads it against, so a node whose
/// wall clock is stepped neither looks dead nor makes the others look dead. A node that
/// fetches news in the background (`wantsNews`) takes or keeps the news fetcher's lease (`SET NX PX`
/// `leaseMilliseconds`, or `PEXPIRE` when it is its own): one node of the cluster fetches.
/// Returns {leases renewed, 1 when the node's heartbeat was missing (it had been forgotten, or this
/// is its first), 1 when this node is the news fetcher else 0}.
struct RenewScript: ClusterScript {
    struct Keys {
        let nodes: String
        let leases: String
        let newsFetcher: String

        init(_ keys: ClusterKeys) { (nodes, leases, newsFetcher) = (keys.nodes, keys.leases, keys.newsFetcher) }
    }

    struct Args {
        let node: String
        let wantsNews: Bool
        let leaseMilliseconds: Int64
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.nodes, keys.leases, keys.newsFetcher] }

    var argList: [[UInt8]] {
        [Self.text(args.node), Self.flag(args.wantsNews), Self.number(args.leaseMilliseconds)]
    }

    static let script = RedisScript(
        name: "renew",
        source: """
            local time = redis.call('TIME')
            local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
            local missing = redis.call('HSET', KEYS[1], ARGV[1], string.format('%.0f', now))
            local fetcher = 0
            if ARGV[2] == '1' then
              if redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[3]) then
                fetcher = 1
              elseif redis.call('GET', KEYS[3]) == ARGV[1] then
                redis.call('PEXPIRE', KEYS[3], ARGV[3])
                fetcher = 1
              end
            end
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[2], 'holders', '0', 'MKSTREAM')
            local held = redis.call('XPENDING', KEYS[2], 'holders', '-', '+', 5000, ARGV[1])
            if #held > 0 then
              local call = {'XCLAIM', KEYS[2], 'holders', ARGV[1], 0}
              for _, pending in ipairs(held) do call[#call + 1] = pending[1] end
              call[#call + 1] = 'JUSTID'
              redis.call(unpack(call))
            end
            return {#held, missing, fetcher}
            """)
}
