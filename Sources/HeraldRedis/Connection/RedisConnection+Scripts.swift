extension RedisConnection {
    /// Runs `script` with EVALSHA. The SHA1 comes from SCRIPT LOAD on first use and is cached on this
    /// connection. Redis forgets scripts when it restarts or on SCRIPT FLUSH; then EVALSHA answers
    /// `NOSCRIPT`, and the script is loaded again and run once more.
    ///
    /// The script's own error (`redis.error_reply`, a runtime error) comes back as `.error`; a script
    /// that does not compile throws `.server`, naming the script.
    public func evaluate(_ script: RedisScript, keys: [[UInt8]], args: [[UInt8]]) throws(RedisError) -> RedisReply {
        let reply = try command(evalsha(try hash(of: script), keys: keys, args: args))
        guard let message = reply.errorMessage, message.hasPrefix("NOSCRIPT") else { return reply }
        scriptHashes[script.source] = nil
        return try command(evalsha(try hash(of: script), keys: keys, args: args))
    }

    public func evaluate(_ script: RedisScript, keys: [String] = [], args: [String] = []) throws(RedisError) -> RedisReply {
        try evaluate(script, keys: keys.map { Array($0.utf8) }, args: args.map { Array($0.utf8) })
    }

    private func evalsha(_ hash: String, keys: [[UInt8]], args: [[UInt8]]) -> [[UInt8]] {
        [Array("EVALSHA".utf8), Array(hash.utf8), Array(String(keys.count).utf8)] + keys + args
    }

    private func hash(of script: RedisScript) throws(RedisError) -> String {
        if let known = scriptHashes[script.source] { return known }
        let reply = try command("SCRIPT", "LOAD", script.source)
        guard case .bulk = reply, let hash = reply.string else {
            throw .server("SCRIPT LOAD \(script.name): \(reply.errorMessage ?? "unexpected reply \(reply)")")
        }
        scriptHashes[script.source] = hash
        return hash
    }
}
