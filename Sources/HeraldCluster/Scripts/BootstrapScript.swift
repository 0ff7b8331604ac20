import HeraldRedis

/// The epoch (made now when missing: the data is new or was lost), the seq, every job record in
/// creation order, the finished ones in the order they ended, and every node's workers: one atomic
/// read, so a view built from it continues exactly at `seq` (`ClusterBootstrap`).
/// Returns {epoch, seq, {id, record, …} by creation, {id, …} by end, {node, workers, …}}.
struct BootstrapScript: ClusterScript {
    struct Keys {
        let epoch: String
        let seq: String
        let jobs: String
        let created: String
        let finished: String
        let workers: String

        init(_ keys: ClusterKeys) {
            (epoch, seq, jobs, created, finished, workers) = (keys.epoch, keys.seq, keys.jobs, keys.created, keys.finished, keys.workers)
        }
    }

    struct Args {
        /// The epoch to set when Redis has none.
        let freshEpoch: String
    }

    let keys: Keys
    let args: Args

    var keyList: [String] { [keys.epoch, keys.seq, keys.jobs, keys.created, keys.finished, keys.workers] }
    var argList: [[UInt8]] { [Self.text(args.freshEpoch)] }

    static let script = RedisScript(
        name: "bootstrap",
        source: """
            local epoch = redis.call('GET', KEYS[1])
            if not epoch then
              redis.call('SET', KEYS[1], ARGV[1])
              epoch = ARGV[1]
            end
            local seq = tonumber(redis.call('GET', KEYS[2]) or '0')
            local jobs = {}
            for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
              local record = redis.call('HGET', KEYS[3], id)
              if record then
                jobs[#jobs + 1] = id
                jobs[#jobs + 1] = record
              end
            end
            return {epoch, seq, jobs, redis.call('ZRANGE', KEYS[5], 0, -1), redis.call('HGETALL', KEYS[6])}
            """)
}
