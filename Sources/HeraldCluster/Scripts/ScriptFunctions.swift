/// Lua functions that several cluster scripts begin with (a script is one source: Redis has no
/// shared libraries for `EVALSHA` scripts). Each takes its keys as parameters, never reading KEYS
/// or ARGV itself, so a script's KEYS and ARGV are all in its own body.
enum ScriptFunctions {
    /// Per-job leases. A job a node holds has one entry in the `leases` stream, pending in its
    /// consumer group `holders` under that node's name: the node renews it (`renew`, every second:
    /// `XCLAIM` with no minimum idle time resets the entry's idle time), and any node takes over
    /// entries idle for longer than the lease (`reclaim`, `XAUTOCLAIM`). `leaseOf` maps job → entry
    /// (to end it), `leasedJob` entry → job (an entry Redis deleted is reported by its id alone).
    /// `dropLease` ends a job's lease.
    static let dropLease = """
        local function dropLease(stream, leaseOf, leasedJob, job)
          local entry = redis.call('HGET', leaseOf, job)
          if entry then
            redis.call('XACK', stream, 'holders', entry)
            redis.call('XDEL', stream, entry)
            redis.call('HDEL', leaseOf, job)
            redis.call('HDEL', leasedJob, entry)
          end
        end

        """

    /// Gives a job's lease to `node` (ending any it had; needs `dropLease` before it). Every entry is
    /// read into the group in the script that adds it, so the group never has an entry nobody holds,
    /// and `XREADGROUP … COUNT 1` reads exactly the one just added.
    static let grantLease =
        dropLease + """
            local function grantLease(stream, leaseOf, leasedJob, node, job)
              dropLease(stream, leaseOf, leasedJob, job)
              pcall(redis.call, 'XGROUP', 'CREATE', stream, 'holders', '0', 'MKSTREAM')
              local entry = redis.call('XADD', stream, '*', 'j', job)
              redis.call('XREADGROUP', 'GROUP', 'holders', node, 'COUNT', '1', 'STREAMS', stream, '>')
              redis.call('HSET', leaseOf, job, entry)
              redis.call('HSET', leasedJob, entry, job)
            end

            """

    /// Remembers which job a start's `requestId` made (`request:<id>`, a day at most), and keeps only
    /// the newest `kept` of them, as a single server does (`requests` orders them by time): a cluster
    /// that starts jobs all day does not keep a key for every start.
    static let rememberRequest = """
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

    /// How many of a kind's jobs hold a place under its cluster-wide `concurrency`: owned by a node,
    /// not ended, and not waiting for `slot`'s consent (`gated`); `except` not counted. A job `slot`
    /// let go is counted even while its record still says `waiting` (its node's `queued` and
    /// `running` may not be appended yet), or a third could be let go behind it.
    static let held = """
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
}
