import HeraldRedis

/// The Lua scripts that make the cluster's writes atomic. Redis runs a script alone, so each is one
/// step no other node can interleave with: that is how `seq` stays gapless and identical everywhere,
/// how the busy rule holds across nodes, and how a node that lost a job cannot write over it.
/// Every key a script touches is passed in KEYS (`ClusterKeys`).
enum ClusterScripts {
    /// Per-job leases, shared by the scripts that give or end one. A job a node holds has one entry
    /// in the `leases` stream, pending in its consumer group `holders` under that node's name: the
    /// node renews it (`renew`, every second: `XCLAIM` with no minimum idle time resets the entry's
    /// idle time), and any node takes over entries idle for longer than the lease (`reclaim`,
    /// `XAUTOCLAIM`). Every entry is read into the group in the script that adds it, so the group
    /// never has an entry nobody holds, and `XREADGROUP … COUNT 1` reads exactly the one just added.
    /// `leaseOf` maps job → entry (to end it), `leasedJob` entry → job (an entry Redis deleted is
    /// reported by its id alone).
    static let leaseFunctions = """
        local function dropLease(stream, leaseOf, leasedJob, job)
          local entry = redis.call('HGET', leaseOf, job)
          if entry then
            redis.call('XACK', stream, 'holders', entry)
            redis.call('XDEL', stream, entry)
            redis.call('HDEL', leaseOf, job)
            redis.call('HDEL', leasedJob, entry)
          end
        end
        local function grantLease(stream, leaseOf, leasedJob, node, job)
          dropLease(stream, leaseOf, leasedJob, job)
          pcall(redis.call, 'XGROUP', 'CREATE', stream, 'holders', '0', 'MKSTREAM')
          local entry = redis.call('XADD', stream, '*', 'j', job)
          redis.call('XREADGROUP', 'GROUP', 'holders', node, 'COUNT', '1', 'STREAMS', stream, '>')
          redis.call('HSET', leaseOf, job, entry)
          redis.call('HSET', leasedJob, entry, job)
        end

        """

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
    /// the job (fencing; a job Redis has never seen, made by the node on its own like a background news
    /// fetch, becomes the node's, under a lease, with its first record); `INCR`s the seq, `XADD`s the entry `<seq>-0` (trimmed to about ARGV[7]),
    /// and keeps the job's record, the ended jobs (the newest ARGV[8]; a forgotten job's results and
    /// log go with it, its record to the archive, which keeps the newest ARGV[11]), the history's
    /// order (a new job's `createdAt`), the node's workers, and a `results` event's items (up to
    /// ARGV[13]) or a `log` event's lines (the last ARGV[13]) for pages on any node.
    /// The results kept are bounded in bytes too (ARGV[14], `--kept-results-bytes`; 0: no bound), as
    /// on a single server: `resultBytes` has each job's, `resultBytesTotal` their sum; when a job ends
    /// over the bound, the oldest finished jobs' results go (their entry becomes -1: pages say they are
    /// no longer kept), the newest always stays.
    /// A job that ended gives up its lease.
    /// KEYS: epoch seq events jobs owner created finished workers active(kind or a dummy) pending
    /// results(job)|dummy log(job)|dummy logFirst(job)|dummy leases leaseOf leasedJob history archive
    /// archived resultBytes resultBytesTotal.
    /// ARGV: epoch node encoding jobId|'' record|'' ended('1'|'') maxlen retain workers|'' prefix
    /// historyJobs 'results'|'log'|'' cap keptResultBytes item….
    /// Returns the seq, or an error `EPOCH …` (the data is gone) or `STALE …` (the job is not ours).
    static let append = RedisScript(
        name: "append",
        source: leaseFunctions + """
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

    /// Admits a start across the cluster: a repeated `requestId` answers with the job it started; a
    /// kind with the busy rule refuses while ARGV[3] of its jobs have not ended; else the job is
    /// counted active, owned by this node, and held under a lease. Two starts on two nodes at the same
    /// instant: one wins.
    /// A job of a kind whose `concurrency` holds across the cluster (ARGV[6] '1') is also put in
    /// `gated(kind)`: it runs only once `slot` lets it (its node asks when its dependencies are met).
    /// KEYS: active(kind) owner request(id)|dummy jobs pending leases leaseOf leasedJob gated(kind) requests.
    /// ARGV: jobId node busyLimit(0: none) requestId|'' kind gated('1'|'') request-key-prefix requestIdsKept.
    /// Returns {'ok', id} | {'existing', id, record|false} | {'busy', id of an active job}.
    static let reserve = RedisScript(
        name: "reserve",
        source: leaseFunctions + rememberRequestFunction + """
            if ARGV[4] ~= '' then
              local existing = redis.call('GET', KEYS[3])
              if existing then return {'existing', existing, redis.call('HGET', KEYS[4], existing)} end
            end
            local limit = tonumber(ARGV[3])
            if limit > 0 and redis.call('SCARD', KEYS[1]) >= limit then
              return {'busy', redis.call('SRANDMEMBER', KEYS[1])}
            end
            redis.call('SADD', KEYS[1], ARGV[1])
            if ARGV[6] == '1' then redis.call('SADD', KEYS[9], ARGV[1]) end
            redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
            redis.call('HSET', KEYS[5], ARGV[1], ARGV[5])
            grantLease(KEYS[6], KEYS[7], KEYS[8], ARGV[2], ARGV[1])
            if ARGV[4] ~= '' then rememberRequest(KEYS[3], KEYS[10], ARGV[4], ARGV[1], ARGV[7], ARGV[8]) end
            return {'ok', ARGV[1]}
            """)

    /// Takes over the jobs whose lease ran out: with ARGV[3] 'lapsed', those whose entry nobody
    /// renewed for ARGV[2] ms (`XAUTOCLAIM` from ARGV[4], at most 100, and the ids of entries Redis
    /// deleted meanwhile, which Redis 7 lists apart); with 'own', this node's own (it restarted under
    /// its old name: what it held before is held by nobody now). Each unfinished one becomes ARGV[1]'s
    /// (so the node that held it can no longer write its events); a job reserved but never written is
    /// forgotten (its kind is no longer busy); an ended one's lease just ends.
    /// KEYS: leases leaseOf leasedJob owner jobs pending. ARGV: node leaseMs 'lapsed'|'own' cursor prefix.
    /// Returns {next cursor, deleted entries, {previous owner, record, …}}.
    static let reclaim = RedisScript(
        name: "reclaim",
        source: leaseFunctions + """
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], 'holders', '0', 'MKSTREAM')
            local node = ARGV[1]
            local taken = {}
            local function settle(entry, job, deleted)
              local record = redis.call('HGET', KEYS[5], job)
              if not record then
                local kind = redis.call('HGET', KEYS[6], job)
                if kind then redis.call('SREM', ARGV[5] .. 'active:' .. kind, job) end
                redis.call('HDEL', KEYS[6], job)
                redis.call('HDEL', KEYS[4], job)
                dropLease(KEYS[1], KEYS[2], KEYS[3], job)
                return
              end
              local state = cjson.decode(record)['state']
              if state ~= 'queued' and state ~= 'waiting' and state ~= 'running' then
                dropLease(KEYS[1], KEYS[2], KEYS[3], job)
                return
              end
              local owner = redis.call('HGET', KEYS[4], job)
              if deleted then grantLease(KEYS[1], KEYS[2], KEYS[3], node, job) end
              -- Lapsed but already this node's (its renewal was late): it keeps running here.
              if owner == node and ARGV[3] == 'lapsed' then return end
              redis.call('HSET', KEYS[4], job, node)
              -- Its new node runs it as a job taken from the queue: it holds a place from now on.
              redis.call('SREM', ARGV[5] .. 'gated:' .. cjson.decode(record)['kind'], job)
              taken[#taken + 1] = owner or ''
              taken[#taken + 1] = record
            end
            local next = '0-0'
            local entries = {}
            local deleted = {}
            if ARGV[3] == 'own' then
              for _, pending in ipairs(redis.call('XPENDING', KEYS[1], 'holders', '-', '+', 5000, node)) do
                entries[#entries + 1] = pending[1]
              end
            else
              local got = redis.call('XAUTOCLAIM', KEYS[1], 'holders', node, ARGV[2], ARGV[4], 'COUNT', 100, 'JUSTID')
              next = got[1]
              entries = got[2]
              deleted = got[3] or {}
            end
            for _, entry in ipairs(entries) do
              local job = redis.call('HGET', KEYS[3], entry)
              if job then
                settle(entry, job, false)
              else
                redis.call('XACK', KEYS[1], 'holders', entry)
                redis.call('XDEL', KEYS[1], entry)
              end
            end
            for _, entry in ipairs(deleted) do
              local job = redis.call('HGET', KEYS[3], entry)
              if job then
                redis.call('HDEL', KEYS[3], entry)
                redis.call('HDEL', KEYS[2], job)
                settle(entry, job, true)
              end
            end
            return {next, #deleted, taken}
            """)

    /// Renews every lease this node holds (`XCLAIM` to itself with no minimum idle time sets each
    /// entry's idle time to zero) and beats its heartbeat (`nodes`: node → milliseconds, which says
    /// the node is alive to page forwarding and to a second node starting under the same name). A node
    /// that fetches news in the background (ARGV[3] '1') takes or keeps the news fetcher's lease
    /// (`SET NX PX` ARGV[4] ms, or `PEXPIRE` when it is its own): one node of the cluster fetches.
    /// KEYS: nodes leases newsFetcher. ARGV: node milliseconds wantsNews('1'|'') leaseMs.
    /// Returns {leases renewed, 1 when the node's heartbeat was missing (it had been forgotten, or
    /// this is its first), 1 when this node is the news fetcher else 0}.
    static let renew = RedisScript(
        name: "renew",
        source: """
            local missing = redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
            local fetcher = 0
            if ARGV[3] == '1' then
              if redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[4]) then
                fetcher = 1
              elseif redis.call('GET', KEYS[3]) == ARGV[1] then
                redis.call('PEXPIRE', KEYS[3], ARGV[4])
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

    /// Forgets a node that stopped (no heartbeat since ARGV[2] ms), unless it came back meanwhile: its
    /// heartbeat goes, and when it had workers attached, an empty `workers` event is appended in its
    /// name, so every view drops them (its workers' connections died with it).
    /// KEYS: nodes workers epoch seq events. ARGV: node staleBeforeMs epoch encoding maxlen.
    /// Returns 1 when it forgot the node, else 0, or an error `EPOCH …`.
    static let forgetNode = RedisScript(
        name: "forgetNode",
        source: """
            if redis.call('GET', KEYS[3]) ~= ARGV[3] then
              return redis.error_reply('EPOCH the stream has a new epoch')
            end
            local heard = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
            if heard >= tonumber(ARGV[2]) then return 0 end
            redis.call('HDEL', KEYS[1], ARGV[1])
            if redis.call('HDEL', KEYS[2], ARGV[1]) == 1 then
              local seq = redis.call('INCR', KEYS[4])
              redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[5], seq .. '-0', 'n', ARGV[1], 'e', ARGV[4])
            end
            return 1
            """)

    /// Makes a job this node's again after a new epoch (Redis lost its data): owned, active, held.
    /// KEYS: owner active(kind) leases leaseOf leasedJob. ARGV: jobId node.
    static let hold = RedisScript(
        name: "hold",
        source: leaseFunctions + """
            redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
            redis.call('SADD', KEYS[2], ARGV[1])
            grantLease(KEYS[3], KEYS[4], KEYS[5], ARGV[2], ARGV[1])
            return 1
            """)

    /// Admits a start into the cluster's queue of its kind: a repeated `requestId` answers with the
    /// job it started; a kind with the busy rule refuses while ARGV[2] of its jobs have not ended;
    /// else the job's `queued` record and event are written (its `seq` given here) and its id is added
    /// to `queue:<kind>`, where any node with room takes it (`claim`). No node owns it until then.
    /// KEYS: active(kind) request(id)|dummy jobs epoch seq events created queue(kind) history requests.
    /// ARGV: jobId busyLimit(0: none) requestId|'' epoch encoding record maxlen node createdAt
    /// request-key-prefix requestIdsKept.
    /// Returns {'ok', id, seq} | {'existing', id, record|false} | {'busy', id of an active job}, or
    /// an error `EPOCH …`.
    static let admit = RedisScript(
        name: "admit",
        source: rememberRequestFunction + """
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
            if ARGV[3] ~= '' then rememberRequest(KEYS[2], KEYS[10], ARGV[3], ARGV[1], ARGV[10], ARGV[11]) end
            local seq = redis.call('INCR', KEYS[5])
            redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[7], seq .. '-0', 'n', ARGV[8], 'e', ARGV[5])
            redis.call('HSET', KEYS[3], ARGV[1], ARGV[6])
            redis.call('ZADD', KEYS[7], 'NX', seq, ARGV[1])
            redis.call('ZADD', KEYS[9], 'NX', ARGV[9], ARGV[1])
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[8], 'runners', '0', 'MKSTREAM')
            redis.call('XADD', KEYS[8], '*', 'j', ARGV[1])
            return {'ok', ARGV[1], seq}
            """)

    /// Adds a request to a node's control stream and drops those older than ARGV[1] milliseconds by
    /// Redis's own clock (`MINID`, exact: a few entries a second): a stream that every cancel and
    /// forwarded page adds to keeps a minute of them, not a count a quiet cluster takes days to reach.
    /// KEYS: control(node). ARGV: keptMs field value …. Returns the entry's id.
    static let control = RedisScript(
        name: "control",
        source: """
            local now = redis.call('TIME')
            local oldest = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - tonumber(ARGV[1])
            return redis.call('XADD', KEYS[1], 'MINID', string.format('%d', math.max(0, oldest)), '*', unpack(ARGV, 2))
            """)

    /// Lua: remembers which job a start's `requestId` made (`request:<id>`, a day at most), and keeps
    /// only the newest `kept` of them, as a single server does (`requests` orders them by time): a
    /// cluster that starts jobs all day does not keep a key for every start.
    static let rememberRequestFunction = """
        local function rememberRequest(key, requests, requestId, job, keyPrefix, kept)
          redis.call('SET', key, job, 'EX', 86400)
          local now = redis.call('TIME')
          redis.call('ZADD', requests, tonumber(now[1]) * 1000000 + tonumber(now[2]), requestId)
          local over = redis.call('ZCARD', requests) - tonumber(kept)
          if over > 0 then
            local old = redis.call('ZPOPMIN', requests, over)
            for i = 1, #old, 2 do redis.call('DEL', keyPrefix .. old[i]) end
          end
        end

        """

    /// Lua: how many of a kind's jobs hold a place under its cluster-wide `concurrency`: owned by a
    /// node, not ended, and not waiting for `slot`'s consent (`gated`); `except` not counted. A job
    /// `slot` let go is counted even while its record still says `waiting` (its node's `queued` and
    /// `running` may not be appended yet), or a third could be let go behind it.
    static let heldFunction = """
        local function held(active, owner, jobs, gated, except)
          local count = 0
          for _, id in ipairs(redis.call('SMEMBERS', active)) do
            if id ~= except and redis.call('HEXISTS', owner, id) == 1 and redis.call('SISMEMBER', gated, id) == 0 then
              local record = redis.call('HGET', jobs, id)
              local state = record and cjson.decode(record)['state'] or 'queued'
              if state == 'waiting' or state == 'queued' or state == 'running' then count = count + 1 end
            end
          end
          return count
        end

        """

    /// Lets a gated job (a start with dependencies, of a kind whose `concurrency` holds across the
    /// cluster) run now that its dependencies are met: when fewer than ARGV[2] of the kind's other
    /// jobs hold a place, it leaves `gated(kind)` and holds one. Gated entries of jobs that ended are
    /// dropped on the way.
    /// KEYS: active(kind) owner jobs gated(kind). ARGV: jobId limit.
    /// Returns 1 (run it) or 0 (not yet: asked again when a job of the kind ends).
    static let slot = RedisScript(
        name: "slot",
        source: heldFunction + """
            for _, id in ipairs(redis.call('SMEMBERS', KEYS[4])) do
              if redis.call('SISMEMBER', KEYS[1], id) == 0 then redis.call('SREM', KEYS[4], id) end
            end
            if redis.call('SISMEMBER', KEYS[4], ARGV[1]) == 0 then return 1 end
            if held(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1]) >= tonumber(ARGV[2]) then return 0 end
            redis.call('SREM', KEYS[4], ARGV[1])
            return 1
            """)

    /// Takes the oldest job of a kind's queue that is still queued and owned by nobody: it becomes
    /// ARGV[1]'s (who then runs it, under a lease). Entries of jobs cancelled while they waited are
    /// dropped on the way. With a limit (ARGV[2] > 0: the kind's `concurrency`, for a kind that queues),
    /// nothing is taken while that many of the kind's jobs are held, queued or running, anywhere in
    /// the cluster: the limit holds across nodes.
    /// A job that waits for its dependencies' consent to run (`gated(kind)`) holds no place yet.
    /// KEYS: queue(kind) owner jobs leases leaseOf leasedJob active(kind) gated(kind). ARGV: node limit(0: none).
    /// Returns the job's record, or nil when none waits (or the kind is at its limit).
    static let claim = RedisScript(
        name: "claim",
        source: leaseFunctions + heldFunction + """
            pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], 'runners', '0', 'MKSTREAM')
            local limit = tonumber(ARGV[2])
            if limit > 0 and held(KEYS[7], KEYS[2], KEYS[3], KEYS[8], '') >= limit then return false end
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
                grantLease(KEYS[4], KEYS[5], KEYS[6], ARGV[1], id)
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
    /// KEYS: active(kind) owner request(id)|dummy pending leases leaseOf leasedJob gated(kind). ARGV: jobId.
    static let release = RedisScript(
        name: "release",
        source: leaseFunctions + """
            dropLease(KEYS[5], KEYS[6], KEYS[7], ARGV[1])
            redis.call('SREM', KEYS[1], ARGV[1])
            redis.call('SREM', KEYS[8], ARGV[1])
            redis.call('HDEL', KEYS[2], ARGV[1])
            redis.call('HDEL', KEYS[4], ARGV[1])
            if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
            return 1
            """)

    /// Puts a finished job's whole kept log in place of the lines its `log` events carried (a flood
    /// skipped some from the stream). Nothing when the job's record is gone (pruned: its log went
    /// with it, and must not come back). Lines go in a thousand at a time (Lua's `unpack` limit).
    /// KEYS: log(job) logfirst(job) jobs. ARGV: jobId first line1 line2 ….
    /// Returns 1 when written, 0 when the job is gone.
    static let keepLog = RedisScript(
        name: "keepLog",
        source: """
            if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 0 then return 0 end
            redis.call('DEL', KEYS[1])
            for i = 3, #ARGV, 1000 do
              redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(#ARGV, i + 999)))
            end
            redis.call('SET', KEYS[2], ARGV[2])
            return 1
            """)
}
