import Foundation
import HeraldRedis

/// Nodes' heartbeats (`ClusterKeys.nodes`: node → milliseconds of Redis's time, beaten every second
/// by each node's publisher: `RenewScript`), read the one way every caller needs them: against
/// Redis's time too, never a node's own wall clock, which may be stepped.
extension RedisConnection {
    /// Seconds since `node` last beat (infinity when it never did, or its entry was reaped).
    /// Thread: the connection's owner.
    func secondsSinceHeard(from node: String, keys: ClusterKeys) throws(RedisError) -> Double {
        let replies = try pipeline([["HGET", keys.nodes, node].map { Array($0.utf8) }, [Array("TIME".utf8)]])
        guard let millis = replies.first?.string.flatMap({ Double($0) }) else { return .infinity }
        return try Double(Self.milliseconds(ofTime: replies[1]) - Int64(millis)) / 1000
    }

    /// Redis's time (`TIME`), in milliseconds since 1970. Thread: the connection's owner.
    func serverMilliseconds() throws(RedisError) -> Int64 {
        try Self.milliseconds(ofTime: command("TIME"))
    }

    private static func milliseconds(ofTime reply: RedisReply) throws(RedisError) -> Int64 {
        if let message = reply.errorMessage { throw RedisError.server(message) }
        guard let parts = reply.array, parts.count == 2, let seconds = parts[0].string.flatMap({ Int64($0) }),
            let micros = parts[1].string.flatMap({ Int64($0) })
        else { throw RedisError.server("TIME answered \(reply)") }
        return seconds * 1000 + micros / 1000
    }
}
