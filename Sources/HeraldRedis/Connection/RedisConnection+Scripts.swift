extension RedisConnection {
    /// Runs `script` with EVALSHA. The SHA1 comes from SCRIPT LOAD on first use and is cached on this
    /// connection. Redis forgets scripts when it restarts or on SCRIPT FLUSH; then EVALSHA answers
    /// `NOSCRIPT`, and the script is loaded again and run once more.
    ///
    /// The script's own error (`redis.error_reply`, a runtime error) comes back as `.error`; a script
    /// that does not compile throws `.server`, naming the script.
    public func evaluate(_ script: RedisScript, keys: [[UInt8]], args: [[UInt8]]) throws(RedisError) -> RedisReply {
        let reply = try command(evalsha(try loadedHash(of: script), keys: keys, args: args))
        guard let message = reply.errorMessage, message.hasPrefix("NOSCRIPT") else { return reply }
        scriptHashes[script.source] = nil
        return try command(evalsha(try loadedHash(of: script), keys: keys, args: args))
    }

    public func evaluate(_ script: RedisScript, keys: [String] = [], args: [String] = []) throws(RedisError) -> RedisReply {
        try evaluate(script, keys: keys.map { Array($0.utf8) }, args: args.map { Array($0.utf8) })
    }

    func evalsha(_ hash: String, keys: [[UInt8]], args: [[UInt8]]) -> [[UInt8]] {
        [Array("EVALSHA".utf8), Array(hash.utf8), Array(String(keys.count).utf8)] + keys + args
    }

    func loadedHash(of script: RedisScript) throws(RedisError) -> String {
        if let known = scriptHashes[script.source] { return known }
        let reply = try command("SCRIPT", "LOAD", script.source)
        guard case .bulk = reply, let hash = reply.string else {
            throw .server("SCRIPT LOAD \(script.name): \(reply.errorMessage ?? "unexpected reply \(reply)")")
        }
        scriptHashes[script.source] = hash
        return hash
    }
}

extension RedisConnection {
    /// Runs `script` once per call, all in one pipeline (one round trip), and returns each call's
    /// reply in order. When Redis forgot the script (NOSCRIPT: it restarted, or SCRIPT FLUSH), the
    /// calls from the first forgotten one on ran nothing: the script is loaded again and they are
    /// sent once more.
    public func evaluateMany(_ script: RedisScript, _ calls: [(keys: [[UInt8]], args: [[UInt8]])]) throws(RedisError) -> [RedisReply] {
        guard !calls.isEmpty else { return [] }
        let hash = try loadedHash(of: script)
        var replies = try pipeline(calls.map { evalsha(hash, keys: $0.keys, args: $0.args) })
        guard let forgotten = replies.firstIndex(where: { $0.errorMessage?.hasPrefix("NOSCRIPT") == true }) else { return replies }
        scriptHashes[script.source] = nil
        let again = try loadedHash(of: script)
        let rest = try pipeline(calls[forgotten...].map { evalsha(again, keys: $0.keys, args: $0.args) })
        replies.replaceSubrange(forgotten..., with: rest)
        return replies
    }
}
