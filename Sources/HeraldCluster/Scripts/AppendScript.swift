import HeraldEngine
import HeraldRedis

/// Gives one event its place: checks the epoch and, for a job's event, that this node still owns
/// the job (fencing; a job Redis has never seen, made by the node on its own like a background news
/// fetch, becomes the node's, under a lease, with its first record); `INCR`s the seq, `XADD`s the
/// entry `<seq>-0` (trimmed to about `maxLength`), and keeps the job's record, the ended jobs (the
/// newest `retainedFinished`; a forgotten job's results and log go with it, its record to the
/// archive, which keeps the newest `historyJobs`), the history's order (a new job's `createdAt`), the
/// node's workers, and a `results` event's items (up to `cap`) or a `log` event's lines (the last
/// `cap`) for pages on any node.
/// The results kept are bounded in bytes too (`keptResultBytes`, `--kept-results-bytes`; 0: no
/// bound), as on a single server: `resultBytes` has each job's, `resultBytesTotal` their sum; when a
/// job ends over the bound, the oldest finished jobs' results go (their entry becomes -1: pages say
/// they are no longer kept), the newest always stays.
/// A job that ended gives up its lease.
/// Returns the seq, or an error `EPOCH …` (the data is gone) or `STALE …` (the job is not ours).
struct AppendScript: ClusterScript {
    struct Keys {
        let epoch: String
        let seq: String
        let events: String
        let jobs: String
        let owner: String
        let created: String
        let finished: String
        let workers: String
        /// `active(kind)` of the job whose record this is, else a key no script writes.
        let active: String
        let pending: String
        /// The event's job's, else keys of job `-` (no job has that id).
        let results: String
        let log: String
        let logFirst: String
        let leases: String
        let leaseOf: String
        let leasedJob: String
        let history: String
        let archive: String
        let archived: String
        let resultBytes: String
        let resultBytesTotal: String

        init(_ keys: ClusterKeys, kind: String?, job: JobID?) {
            let subject = job?.rawValue ?? "-"
            (epoch, seq, events, jobs, owner, created, finished) =
                (keys.epoch, keys.seq, keys.events, keys.jobs, keys.owner, keys.created, keys.finished)
            (workers, active, pending) = (keys.workers, keys.active(kind ?? "-"), keys.pending)
            (results, log, logFirst) = (keys.results(subject), keys.log(subject), keys.logFirst(subject))
            (leases, leaseOf, leasedJob) = (keys.leases, keys.leaseOf, keys.leasedJob)
            (history, archive, archived, resultBytes, resultBytesTotal) =
                (keys.history, keys.archive, keys.archived, keys.resultBytes, keys.resultBytesTotal)
        }
    }

    /// What a `results` or `log` event keeps for pages.
    enum Kept: String {
        case results
        case log
    }

    struct Args {
        let epoch: String
        let node: String
        /// The event's encoding, the stream entry's `e`.
        let encoding: [UInt8]
        /// The job the event is about (only its owner may append it); nil for news and workers.
        let job: JobID?
        /// The job's record (JSON) when the event is a change of its state.
        let record: [UInt8]?
        /// The record is of a job that ended: it gives up its lease, and finished jobs are pruned.
        let ended: Bool
        /// About how many entries the stream keeps (`MAXLEN ~`).
        let maxLength: Int
        /// How many finished jobs keep their record, results and log.
        let retainedFinished: Int
        /// The node's workers (JSON) when they changed.
        let workers: [UInt8]?
        /// The key prefix, for the keys of pruned jobs (their results and logs).
        let prefix: String
        /// How many records the archive keeps.
        let historyJobs: Int
        /// What the event's `items` are, if anything is kept of them.
        let kept: Kept?
        /// How many results a job keeps, or the last log lines.
        let cap: Int
        /// The bound on all finished jobs' kept results, in bytes (0: none).
        let keptResultBytes: Int
        /// A `results` event's items or a `log` event's lines (JSON each): ARGV's variadic tail.
        let items: [[UInt8]]
    }

    let keys: Keys
    let args: Args

    var keyList: [String] {
        [
            keys.epoch, keys.seq, keys.events, keys.jobs, keys.owner, keys.created, keys.finished, keys.workers, keys.active, keys.pending,
            keys.results, keys.log, keys.logFirst, keys.leases, keys.leaseOf, keys.leasedJob, keys.history, keys.archive, keys.archived,
            keys.resultBytes, keys.resultBytesTotal,
        ]
    }

    var argList: [[UInt8]] {
        [
            Self.text(args.epoch), Self.text(args.node), args.encoding, Self.text(args.job?.rawValue ?? ""), args.record ?? [],
            Self.flag(args.ended), Self.number(args.maxLength), Self.number(args.retainedFinished), args.workers ?? [],
            Self.text(args.prefix), Self.number(args.historyJobs), Self.text(args.kept?.rawValue ?? ""), Self.number(args.cap),
            Self.number(args.keptResultBytes),
        ] + args.items
    }

    static let script = RedisScript(
        name: "append",
        source: ScriptFunctions.grantLease + """
            local function dropResults(id, forget)
              local bytes = tonumber(redis.call('HGET', KEYS[20], id) or '0')
              if bytes > 0 then redis.call('DECRBY', KEYS[21], bytes) end
              if forget then redis.call('HDEL', KEYS[20], id) else redis.call('HSET', KEYS[20], id, -1) end
              redis.call('DEL', ARGV[10] .. 'results:' .. id)
            end
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then
              return redis.error_reply('EPOCH the stream has a new epoch')
            end
            local job = ARGV[4]
            if job ~= '' then
              local owner = redis.call('HGET', KEYS[5], job)
              if not owner and ARGV[5] ~= '' and redis.call('HEXISTS', KEYS[4], job) == 0 then
                -- A job the node made on its own (a background news fetch): its first record makes it the node's.
                redis.call('HSET', KEYS[5], job, ARGV[2])
                grantLease(KEYS[14], KEYS[15], KEYS[16], ARGV[2], job)
                owner = ARGV[2]
              end
              if owner ~= ARGV[2] then
                return redis.error_reply('STALE job ' .. job .. ' is held by ' .. tostring(owner))
              end
            end
            local seq = redis.call('INCR', KEYS[2])
            redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[7], seq .. '-0', 'n', ARGV[2], 'e', ARGV[3])
            if ARGV[5] ~= '' then
              redis.call('HSET', KEYS[4], job, ARGV[5])
              redis.call('HDEL', KEYS[10], job)
              if redis.call('ZADD', KEYS[6], 'NX', seq, job) == 1 then
                redis.call('ZADD', KEYS[17], 'NX', cjson.decode(ARGV[5])['createdAt'] or 0, job)
              end
              if ARGV[6] == '1' then
                dropLease(KEYS[14], KEYS[15], KEYS[16], job)
                redis.call('SREM', KEYS[9], job)
                redis.call('ZADD', KEYS[7], 'NX', seq, job)
                local excess = redis.call('ZCARD', KEYS[7]) - tonumber(ARGV[8])
                if excess > 0 then
                  local old = redis.call('ZPOPMIN', KEYS[7], excess)
                  local keep = tonumber(ARGV[11])
                  for i = 1, #old, 2 do
                    local record = redis.call('HGET', KEYS[4], old[i])
                    if record and keep > 0 then
                      redis.call('HSET', KEYS[18], old[i], record)
                      redis.call('ZADD', KEYS[19], seq, old[i])
                    else
                      redis.call('ZREM', KEYS[17], old[i])
                    end
                    redis.call('HDEL', KEYS[4], old[i])
                    redis.call('HDEL', KEYS[5], old[i])
                    redis.call('ZREM', KEYS[6], old[i])
                    dropResults(old[i], true)
                    redis.call('DEL', ARGV[10] .. 'log:' .. old[i], ARGV[10] .. 'logfirst:' .. old[i])
                  end
                  local over = redis.call('ZCARD', KEYS[19]) - keep
                  if over > 0 then
                    local gone = redis.call('ZPOPMIN', KEYS[19], over)
                    for i = 1, #gone, 2 do
                      redis.call('HDEL', KEYS[18], gone[i])
                      redis.call('ZREM', KEYS[17], gone[i])
                    end
                  end
                end
                local bound = tonumber(ARGV[14])
                if bound > 0 and tonumber(redis.call('GET', KEYS[21]) or '0') > bound then
                  for _, id in ipairs(redis.call('ZRANGE', KEYS[7], 0, -1)) do
                    if tonumber(redis.call('GET', KEYS[21]) or '0') <= bound then break end
                    if id ~= job and tonumber(redis.call('HGET', KEYS[20], id) or '0') > 0 then dropResults(id, false) end
                  end
                end
              end
            end
            if ARGV[9] ~= '' then redis.call('HSET', KEYS[8], ARGV[2], ARGV[9]) end
            local cap = tonumber(ARGV[13])
            if ARGV[12] == 'results' then
              local last = math.min(#ARGV, 14 + cap - redis.call('LLEN', KEYS[11]))
              local added = 0
              for i = 15, last do
                redis.call('RPUSH', KEYS[11], ARGV[i])
                added = added + #ARGV[i]
              end
              if added > 0 then
                redis.call('HINCRBY', KEYS[20], job, added)
                redis.call('INCRBY', KEYS[21], added)
              end
            elseif ARGV[12] == 'log' and #ARGV >= 15 then
              redis.call('RPUSH', KEYS[12], unpack(ARGV, 15))
              local over = redis.call('LLEN', KEYS[12]) - cap
              if over > 0 then
                redis.call('LTRIM', KEYS[12], over, -1)
                redis.call('INCRBY', KEYS[13], over)
              end
            end
            return seq
            """)
}
