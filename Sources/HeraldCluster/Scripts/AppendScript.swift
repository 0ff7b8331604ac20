import HeraldEngine
import HeraldRedis

/// Gives a batch of one node's events their places, in order, in one call (Redis runs it alone, so a
/// batch lands whole or not at all, and no other node's events come between its events): checks the
/// epoch once and, for each job's event, that this node still owns the job (fencing; a job Redis has
/// never seen, made by the node on its own like a background news fetch, becomes the node's, under a
/// lease, with its first record); numbers the events from the stored `seq` on (one read and one write
/// of `seq` per batch, so `seq` stays gapless: a refused event takes no number), `XADD`s the batch's
/// events as one entry `<first seq>-0` (`ClusterEntry`: the encodings joined by newlines, which a
/// JSON encoding never holds; trimmed to the events of about the last `maxLength` seqs, `MINID ~`),
/// and keeps each job's record, the ended jobs (the newest
/// `retainedFinished`; a forgotten job's results and log go with it, its record to the archive,
/// which keeps the newest `historyJobs`), the history's order (a new job's `createdAt`), the node's
/// workers, and a `results` event's items (up to `cap`) or a `log` event's lines (the last `cap`)
/// for pages on any node.
/// The results kept are bounded in bytes too (`keptResultBytes`, `--kept-results-bytes`; 0: no
/// bound), as on a single server: `resultBytes` has each job's, `resultBytesTotal` their sum; when a
/// job ends over the bound, the oldest finished jobs' results go (their entry becomes -1: pages say
/// they are no longer kept), the newest always stays.
/// A job that ended gives up its lease.
/// Redis's own work per event is reading its fields (and what a change of state keeps): the epoch,
/// `seq` and each job's owner are read, and the entry added, once per batch.
/// Each batch carries a ticket (the publisher's incarnation and the batch's number), kept per node with
/// the jobs the batch was refused for: a batch sent again because its answer was lost (`retry`) whose
/// ticket is the node's last is answered as it was the first time, and nothing is appended twice.
/// Returns one reply per event, in order: its seq (0 for a batch recognised as already appended), or
/// an error `STALE …` (the job is not ours); or, for the whole batch, an error `EPOCH …` (the data is gone).
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
        let pending: String
        let leases: String
        let leaseOf: String
        let leasedJob: String
        let history: String
        let archive: String
        let archived: String
        let resultBytes: String
        let resultBytesTotal: String
        let appended: String

        init(_ keys: ClusterKeys) {
            (epoch, seq, events, jobs, owner, created, finished) =
                (keys.epoch, keys.seq, keys.events, keys.jobs, keys.owner, keys.created, keys.finished)
            (workers, pending) = (keys.workers, keys.pending)
            (leases, leaseOf, leasedJob) = (keys.leases, keys.leaseOf, keys.leasedJob)
            (history, archive, archived, resultBytes, resultBytesTotal) =
                (keys.history, keys.archive, keys.archived, keys.resultBytes, keys.resultBytesTotal)
            appended = keys.appended
        }
    }

    /// What a `results` or `log` event keeps for pages.
    enum Kept: String {
        case results
        case log
    }

    /// One event of the batch: ARGV's tail holds each one's fields in this order, then its items.
    /// The keys of its job (`active:<kind>`, `results:<job>`, `log:<job>`, `logfirst:<job>`) are
    /// built from the prefix, as the pruning of ended jobs always did.
    struct Event {
        /// The event's encoding, the stream entry's `e`.
        let encoding: [UInt8]
        /// The job the event is about (only its owner may append it); nil for news and workers.
        let job: JobID?
        /// The job's record (JSON) when the event is a change of its state.
        let record: [UInt8]?
        /// The job's kind when the event is a change of its state (its `active:<kind>` set).
        let kind: String?
        /// The record is of a job that ended: it gives up its lease, and finished jobs are pruned.
        let ended: Bool
        /// The node's workers (JSON) when they changed.
        let workers: [UInt8]?
        /// What the event's `items` are, if anything is kept of them.
        let kept: Kept?
        /// How many results a job keeps, or the last log lines.
        let cap: Int
        /// A `results` event's items or a `log` event's lines (JSON each).
        let items: [[UInt8]]

        /// Its fields as the Lua reads them: 9 fields, then the items.
        var argList: [[UInt8]] {
            [
                encoding, AppendScript.text(job?.rawValue ?? ""), record ?? [], AppendScript.text(kind ?? "-"),
                AppendScript.flag(ended), workers ?? [], AppendScript.text(kept?.rawValue ?? ""), AppendScript.number(cap),
                AppendScript.number(items.count),
            ] + items
        }
    }

    struct Args {
        let epoch: String
        let node: String
        /// About how many events the stream keeps (`MINID ~` the last seq less this).
        let maxLength: Int
        /// How many finished jobs keep their record, results and log.
        let retainedFinished: Int
        /// The key prefix, for the keys of each event's job and of pruned jobs.
        let prefix: String
        /// How many records the archive keeps.
        let historyJobs: Int
        /// The bound on all finished jobs' kept results, in bytes (0: none).
        let keptResultBytes: Int
        /// This batch's ticket: unique for the node's life (its incarnation and the batch's number).
        let ticket: String
        /// The same batch was sent before and its answer lost: it may have been appended.
        let retry: Bool
        /// The batch, in the node's order: ARGV's variadic tail.
        let events: [Event]
    }

    let keys: Keys
    let args: Args

    var keyList: [String] {
        [
            keys.epoch, keys.seq, keys.events, keys.jobs, keys.owner, keys.created, keys.finished, keys.workers, keys.pending,
            keys.leases, keys.leaseOf, keys.leasedJob, keys.history, keys.archive, keys.archived, keys.resultBytes, keys.resultBytesTotal,
            keys.appended,
        ]
    }

    var argList: [[UInt8]] {
        [
            Self.text(args.epoch), Self.text(args.node), Self.number(args.maxLength), Self.number(args.retainedFinished),
            Self.text(args.prefix), Self.number(args.historyJobs), Self.number(args.keptResultBytes), Self.text(args.ticket),
            Self.flag(args.retry),
        ] + args.events.flatMap(\.argList)
    }

    static let script = RedisScript(
        name: "append",
        source: ScriptFunctions.grantLease + """
            local function dropResults(id, forget)
              local bytes = tonumber(redis.call('HGET', KEYS[16], id) or '0')
              if bytes > 0 then redis.call('DECRBY', KEYS[17], bytes) end
              if forget then redis.call('HDEL', KEYS[16], id) else redis.call('HSET', KEYS[16], id, -1) end
              redis.call('DEL', ARGV[5] .. 'results:' .. id)
            end
            local owners = {}
            -- A job's owner, read once a batch (false: none); the script itself is all that changes it meanwhile.
            local function ownerOf(job)
              if owners[job] == nil then owners[job] = redis.call('HGET', KEYS[5], job) end
              return owners[job]
            end
            -- A job ended at `seq`: the oldest ended jobs beyond those kept are forgotten or archived,
            -- and finished jobs' results are dropped, oldest first, while over the byte bound.
            local function pruneEnded(job, seq)
              local excess = redis.call('ZCARD', KEYS[7]) - tonumber(ARGV[4])
              if excess > 0 then
                local old = redis.call('ZPOPMIN', KEYS[7], excess)
                local keep = tonumber(ARGV[6])
                for i = 1, #old, 2 do
                  local record = redis.call('HGET', KEYS[4], old[i])
                  if record and keep > 0 then
                    redis.call('HSET', KEYS[14], old[i], record)
                    redis.call('ZADD', KEYS[15], seq, old[i])
                  else
                    redis.call('ZREM', KEYS[13], old[i])
                  end
                  redis.call('HDEL', KEYS[4], old[i])
                  redis.call('HDEL', KEYS[5], old[i])
                  owners[old[i]] = nil
                  redis.call('ZREM', KEYS[6], old[i])
                  dropResults(old[i], true)
                  redis.call('DEL', ARGV[5] .. 'log:' .. old[i], ARGV[5] .. 'logfirst:' .. old[i])
                end
                local over = redis.call('ZCARD', KEYS[15]) - keep
                if over > 0 then
                  local gone = redis.call('ZPOPMIN', KEYS[15], over)
                  for i = 1, #gone, 2 do
                    redis.call('HDEL', KEYS[14], gone[i])
                    redis.call('ZREM', KEYS[13], gone[i])
                  end
                end
              end
              local bound = tonumber(ARGV[7])
              if bound > 0 and tonumber(redis.call('GET', KEYS[17]) or '0') > bound then
                for _, id in ipairs(redis.call('ZRANGE', KEYS[7], 0, -1)) do
                  if tonumber(redis.call('GET', KEYS[17]) or '0') <= bound then break end
                  if id ~= job and tonumber(redis.call('HGET', KEYS[16], id) or '0') > 0 then dropResults(id, false) end
                end
              end
            end
            local heads = redis.call('MGET', KEYS[1], KEYS[2])
            if heads[1] ~= ARGV[1] then
              return redis.error_reply('EPOCH the stream has a new epoch')
            end
            local node, prefix, ticket = ARGV[2], ARGV[5], ARGV[8]
            if ARGV[9] == '1' then
              local last = redis.call('HGET', KEYS[18], node)
              if last and string.sub(last, 1, #ticket + 1) == ticket .. '\\n' then
                -- Appended already: answered again as then (seq 0), with the jobs it was refused for.
                local refused = {}
                for job in string.gmatch(string.sub(last, #ticket + 2), '[^\\n]+') do refused[job] = true end
                local again = {}
                local at = 10
                while at <= #ARGV do
                  local job = ARGV[at + 1]
                  at = at + 9 + tonumber(ARGV[at + 8])
                  if refused[job] then again[#again + 1] = redis.error_reply('STALE job ' .. job .. ' is held by another node')
                  else again[#again + 1] = 0 end
                end
                return again
              end
            end
            local first = tonumber(heads[2] or '0')
            local seq = first
            -- The batch's encodings, in their seqs' order: the one entry added at the end.
            local encodings = {}
            -- One event: fenced, numbered, and what it changes kept. It takes its number (and its
            -- place in the entry) before anything else it changes, so an error part-way through one
            -- event (caught below) leaves no gap.
            local function place(encoding, job, record, kind, ended, workers, kept, cap, items, last)
              if job ~= '' then
                local owner = ownerOf(job)
                if not owner and record ~= '' and redis.call('HEXISTS', KEYS[4], job) == 0 then
                  -- A job the node made on its own (a background news fetch): its first record makes it the node's.
                  redis.call('HSET', KEYS[5], job, node)
                  grantLease(KEYS[10], KEYS[11], KEYS[12], node, job)
                  owner = node
                  owners[job] = node
                end
                if owner ~= node then
                  return redis.error_reply('STALE job ' .. job .. ' is held by ' .. tostring(owner))
                end
              end
              seq = seq + 1
              encodings[#encodings + 1] = encoding
              if record ~= '' then
                redis.call('HSET', KEYS[4], job, record)
                redis.call('HDEL', KEYS[9], job)
                if redis.call('ZADD', KEYS[6], 'NX', seq, job) == 1 then
                  redis.call('ZADD', KEYS[13], 'NX', cjson.decode(record)['createdAt'] or 0, job)
                end
                if ended == '1' then
                  dropLease(KEYS[10], KEYS[11], KEYS[12], job)
                  redis.call('SREM', prefix .. 'active:' .. kind, job)
                  redis.call('ZADD', KEYS[7], 'NX', seq, job)
                  pruneEnded(job, seq)
                end
              end
              if workers ~= '' then redis.call('HSET', KEYS[8], node, workers) end
              if kept == 'results' then
                local key = prefix .. 'results:' .. job
                local stop = math.min(last, items - 1 + cap - redis.call('LLEN', key))
                local added = 0
                for i = items, stop do
                  redis.call('RPUSH', key, ARGV[i])
                  added = added + #ARGV[i]
                end
                if added > 0 then
                  redis.call('HINCRBY', KEYS[16], job, added)
                  redis.call('INCRBY', KEYS[17], added)
                end
              elseif kept == 'log' and last >= items then
                local key = prefix .. 'log:' .. job
                redis.call('RPUSH', key, unpack(ARGV, items, last))
                local over = redis.call('LLEN', key) - cap
                if over > 0 then
                  redis.call('LTRIM', key, over, -1)
                  redis.call('INCRBY', prefix .. 'logfirst:' .. job, over)
                end
              end
              return seq
            end
            local replies = {}
            local refusedJobs = {}
            -- ARGV's tail: each event's 9 fields, then its items (as many as the 9th says).
            local at = 10
            while at <= #ARGV do
              local encoding, job, record, kind, ended, workers, kept = unpack(ARGV, at, at + 6)
              local cap, count = tonumber(ARGV[at + 7]), tonumber(ARGV[at + 8])
              local items, last = at + 9, at + 8 + count
              at = last + 1
              local ok, reply = pcall(place, encoding, job, record, kind, ended, workers, kept, cap, items, last)
              if not ok then
                -- Not the batch's fault: this event is answered with the error, the others still land.
                reply = redis.error_reply(type(reply) == 'table' and tostring(reply.err) or tostring(reply))
              end
              if type(reply) == 'table' and reply.err and string.sub(reply.err, 1, 5) == 'STALE' then
                refusedJobs[#refusedJobs + 1] = job
              end
              replies[#replies + 1] = reply
            end
            if seq ~= first then
              local oldest = string.format('%d', math.max(0, seq - tonumber(ARGV[3])))
              local added, failure = pcall(
                redis.call, 'XADD', KEYS[3], 'MINID', '~', oldest, (first + 1) .. '-0',
                'n', node, 'e', table.concat(encodings, '\\n'))
              if not added then
                -- Redis refused the entry (out of memory): no event of the batch took a number.
                local message = type(failure) == 'table' and tostring(failure.err) or tostring(failure)
                for i, reply in ipairs(replies) do
                  if type(reply) == 'number' then replies[i] = redis.error_reply(message) end
                end
                return replies
              end
              redis.call('SET', KEYS[2], seq)
            end
            redis.call('HSET', KEYS[18], node, ticket .. '\\n' .. table.concat(refusedJobs, '\\n'))
            return replies
            """)
}
