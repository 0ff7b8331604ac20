import HeraldRedis

extension RedisConnection {
    /// Runs one call of a cluster script (`evaluate`, EVALSHA).
    func evaluate<Call: ClusterScript>(_ call: Call) throws(RedisError) -> RedisReply {
        try evaluate(Call.script, keys: call.keyList.map { Array($0.utf8) }, args: call.argList)
    }

    /// Runs every call of one cluster script in one pipeline (`evaluateMany`); replies in order.
    func evaluateMany<Call: ClusterScript>(_ calls: [Call]) throws(RedisError) -> [RedisReply] {
        try evaluateMany(Call.script, calls.map { (keys: $0.keyList.map { Array($0.utf8) }, args: $0.argList) })
    }
}
