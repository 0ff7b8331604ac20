import HeraldRedis

extension RedisConnection {
    /// Runs one call of a cluster script (`evaluate`, EVALSHA).
    func evaluate<Call: ClusterScript>(_ call: Call) throws(RedisError) -> RedisReply {
        try evaluate(Call.script, keys: call.keyList.map { Array($0.utf8) }, args: call.argList)
    }

}
