import HeraldRedis

/// The Lua scripts that make the cluster's writes atomic. Redis runs a script alone, so each is one
/// step no other node can interleave with: that is how `seq` stays gapless and identical everywhere,
/// how the busy rule holds across nodes, and how a node that lost a job cannot write over it.
/// Every key a script touches is passed in KEYS (`ClusterKeys`).
enum ClusterScripts {
    /// The epoch (made now with ARGV[1] when missing: the data is new or was lost), the seq, every
    /// job record in creation order, the finished ones in the order they ended, and every node's
    /// workers: one atomic read, so a view built from it continues exactly at `seq`.
    /// KEYS: epoch seq jobs created finished workers. ARGV: a fresh epoch.
    /// Returns {epoch, seq, {id, record, …} by creation, {id, …} by end, {node, workers, …}}.
    static let bootstrap = RedisScript(
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

    /// Gives one event its place: checks the epoch and, for a job's event, that this node still owns
    /// the job (fencing); `INCR`s the seq, `XADD`s the entry `<seq>-0` (trimmed to about ARGV[7]),
    /// and keeps the job's record, the ended jobs (the newest ARGV[8]; a forgotten job's results and
    /// log go with it), the node's workers, and a `results` event's items (up to ARGV[12]) or a `log`
    /// event's lines (the last ARGV[12]) for pages on any node.
    /// KEYS: epoch seq events jobs owner created finished workers active(kind or a dummy) pending
    /// results(job)|dummy log(job)|dummy logFirst(job)|dummy.
    /// ARGV: epoch node encoding jobId|'' record|'' ended('1'|'') maxlen retain workers|'' prefix
    /// 'results'|'log'|'' cap item….
    /// Returns the seq, or an error `EPOCH …` (the data is gone) or `STALE …` (the job is not ours).
    static let append = RedisScript(
        name: "append",
        source: """
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then
              return redis.error_reply('EPOCH the stream has a new epoch')
            end
            local job = ARGV[4]
            if job ~= '' then
              local owner = redis.call('HGET', KEYS[5], job)
              if owner ~= ARGV[2] then
                return redis.error_reply('STALE job ' .. job .. ' is held by ' .. tostring(owner))
              end
            end
            local seq = redis.call('INCR', KEYS[2])
            redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[7], seq .. '-0', 'n', ARGV[2], 'e', ARGV[3])
            if ARGV[5] ~= '' then
              redis.call('HSET', KEYS[4], job, ARGV[5])
              redis.call('HDEL', KEYS[10], job)
              redis.call('ZADD', KEYS[6], 'NX', seq, job)
              if ARGV[6] == '1' then
                redis.call('SREM', KEYS[9], job)
                redis.call('ZADD', KEYS[7], 'NX', seq, job)
                local excess = redis.call('ZCARD', KEYS[7]) - tonumber(ARGV[8])
                if excess > 0 then
                  local old = redis.call('ZPOPMIN', KEYS[7], excess)
                  for i = 1, #old, 2 do
                    redis.call('HDEL', KEYS[4], old[i])
                    redis.call('HDEL', KEYS[5], old[i])
                    redis.call('ZREM', KEYS[6], old[i])
                    redis.call('DEL', ARGV[10] .. 'results:' .. old[i], ARGV[10] .. 'log:' .. old[i], ARGV[10] .. 'logfirst:' .. old[i])
                  end
                end
              end
            end
            if ARGV[9] ~= '' then redis.call('HSET', KEYS[8], ARGV[2], ARGV[9]) end
            local cap = tonumber(ARGV[12])
            if ARGV[11] == 'results' then
              local last = math.min(#ARGV, 12 + cap - redis.call('LLEN', KEYS[11]))
              for i = 13, last do redis.call('RPUSH', KEYS[11], ARGV[i]) end
            elseif ARGV[11] == 'log' and #ARGV >= 13 then
              redis.call('RPUSH', KEYS[12], unpack(ARGV, 13))
              local over = redis.call('LLEN', KEYS[12]) - cap
              if over > 0 then
                redis.call('LTRIM', KEYS[12], over, -1)
                redis.call('INCRBY', KEYS[13], over)
              end
            end
            return seq
            """)

    /// Admits a start across the cluster: a repeated `requestId` answers with the job it started; a
    /// kind with the busy rule refuses while ARGV[3] of its jobs have not ended; else the job is
    /// counted active and owned by this node. Two starts on two nodes at the same instant: one wins.
    /// KEYS: active(kind) owner request(id)|dummy jobs pending. ARGV: jobId node busyLimit(0: none)
    /// requestId|'' kind.
    /// Returns {'ok', id} | {'existing', id, record|false} | {'busy', id of an active job}.
    static let reserve = RedisScript(
        name: "reserve",
        source: """
            if ARGV[4] ~= '' then
              local existing = redis.call('GET', KEYS[3])
              if existing then return {'existing', existing, redis.call('HGET', KEYS[4], existing)} end
            end
            local limit = tonumber(ARGV[3])
            if limit > 0 and redis.call('SCARD', KEYS[1]) >= limit then
              return {'busy', redis.call('SRANDMEMBER', KEYS[1])}
            end
            redis.call('SADD', KEYS[1], ARGV[1])
            redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
            redis.call('HSET', KEYS[5], ARGV[1], ARGV[5])
            if ARGV[4] ~= '' then redis.call('SET', KEYS[3], ARGV[1], 'EX', 86400) end
            return {'ok', ARGV[1]}
            """)

    /// Takes over the unfinished jobs of a node whose lease ran out (no heartbeat since ARGV[3] ms),
    /// unless it came back meanwhile: each becomes ARGV[2]'s (so the stopped node's later writes are
    /// refused), and a job reserved but never written is forgotten (its kind is no longer busy).
    /// KEYS: nodes owner jobs pending. ARGV: stoppedNode node staleBeforeMs prefix.
    /// Returns the records taken over.
    static let reap = RedisScript(
        name: "reap",
        source: """
            local heard = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
            if heard >= tonumber(ARGV[3]) then return {} end
            redis.call('HDEL', KEYS[1], ARGV[1])
            local taken = {}
            local owners = redis.call('HGETALL', KEYS[2])
            for i = 1, #owners, 2 do
              local id = owners[i]
              if owners[i + 1] == ARGV[1] then
                local record = redis.call('HGET', KEYS[3], id)
                if record then
                  local state = cjson.decode(record)['state']
                  if state == 'queued' or state == 'waiting' or state == 'running' then
                    redis.call('HSET', KEYS[2], id, ARGV[2])
                    taken[#taken + 1] = record
                  end
                else
                  local kind = redis.call('HGET', KEYS[4], id)
                  if kind then redis.call('SREM', ARGV[4] .. 'active:' .. kind, id) end
                  redis.call('HDEL', KEYS[4], id)
                  redis.call('HDEL', KEYS[2], id)
                end
              end
            end
            return taken
            """)

    /// Admits a start into the cluster's queue of its kind: a repeated `requestId` answers with the
    /// job it started; a kind with the busy rule refuses while ARGV[2] of its jobs have not ended;
    /// else the job's `queued` record and event are written (its `seq` given here) and its id is added
    /// to `queue:<kind>`, where any node with room takes it (`claim`). No node owns it until then.
    /// KEYS: active(kind) request(id)|dummy jobs epoch seq events created queue(kind).
    /// ARGV: jobId busyLimit(0: none) requestId|'' epoch encoding record maxlen node.
    /// Returns {'ok', id, seq} | {'existing', id, record|false} | {'busy', id of an active job}, or
    /// an error `EPOCH …`.
    static let admit = RedisScript(
        name: "admit",
        source: """
            if redis.call('GET', KEYS[4]) ~= ARGV[4] then
              return redis.error_reply('EPOCH the stream has a new epoch')
            end
            if ARGV[3] ~= '' then
              local existing = redis.call('GET', KEYS[2])
              if existing then return {'existing', existing, redis.call('HGET', KEYS[3], existing)} end
            end
            local limit = tonumber(ARGV[2])
            if limit > 0 and redis.call('SCARD', KEYS[1]) >= limit then
              return {'busy', redis.call('SRANDMEMBER', KEYS[1])}
            end
            redis.call('SADD', KEYS[1], ARGV[1])
            if ARGV[3] ~= '' then redis.call('SET', KEYS[2], ARGV[1], 'EX', 86400) end
            local seq = redis.call('INCR', KEYS[5])
            redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[7], seq .. '-0', 'n', ARGV[8], 'e', ARGV[5])
            redis.call('HSET', KEYS[3], ARGV[1], ARGV[6])
            redis.call('ZADD', KEYS[7], 'NX', seq, ARGV[1])
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[8], 'runners', '0', 'MKSTREAM')
            redis.call('XADD', KEYS[8], '*', 'j', ARGV[1])
            return {'ok', ARGV[1], seq}
            """)

    /// Takes the oldest job of a kind's queue that is still queued and owned by nobody: it becomes
    /// ARGV[1]'s (who then runs it). Entries of jobs cancelled while they waited are dropped on the way.
    /// KEYS: queue(kind) owner jobs. ARGV: node. Returns the job's record, or nil when none waits.
    static let claim = RedisScript(
        name: "claim",
        source: """
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], 'runners', '0', 'MKSTREAM')
            for _ = 1, 16 do
              local got = redis.call('XREADGROUP', 'GROUP', 'runners', ARGV[1], 'COUNT', '1', 'STREAMS', KEYS[1], '>')
              if not got then return false end
              local entry = got[1][2][1]
              local id = entry[2][2]
              redis.call('XACK', KEYS[1], 'runners', entry[1])
              redis.call('XDEL', KEYS[1], entry[1])
              local record = redis.call('HGET', KEYS[3], id)
              if record and not redis.call('HGET', KEYS[2], id) and cjson.decode(record)['state'] == 'queued' then
                redis.call('HSET', KEYS[2], id, ARGV[1])
                return record
              end
            end
            return false
            """)

    /// Cancels a job that waits in its kind's queue, owned by nobody: its `cancelled` record and
    /// event are written here. A job a node took meanwhile is that node's to cancel (`owned`).
    /// KEYS: owner jobs active(kind) epoch seq events finished. ARGV: jobId epoch encoding record node maxlen.
    /// Returns 'ok', 'owned' or 'gone' (no longer queued), or an error `EPOCH …`.
    static let cancelQueued = RedisScript(
        name: "cancelQueued",
        source: """
            if redis.call('GET', KEYS[4]) ~= ARGV[2] then
              return redis.error_reply('EPOCH the stream has a new epoch')
            end
            if redis.call('HGET', KEYS[1], ARGV[1]) then return 'owned' end
            local record = redis.call('HGET', KEYS[2], ARGV[1])
            if not record or cjson.decode(record)['state'] ~= 'queued' then return 'gone' end
            local seq = redis.call('INCR', KEYS[5])
            redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[6], seq .. '-0', 'n', ARGV[5], 'e', ARGV[3])
            redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
            redis.call('SREM', KEYS[3], ARGV[1])
            redis.call('ZADD', KEYS[7], 'NX', seq, ARGV[1])
            return 'ok'
            """)

    /// Undoes a reservation whose start the node then refused (bad params, unknown dependency).
    /// KEYS: active(kind) owner request(id)|dummy pending. ARGV: jobId.
    static let release = RedisScript(
        name: "release",
        source: """
            redis.call('SREM', KEYS[1], ARGV[1])
            redis.call('HDEL', KEYS[2], ARGV[1])
            redis.call('HDEL', KEYS[4], ARGV[1])
            if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
            return 1
            """)
}
