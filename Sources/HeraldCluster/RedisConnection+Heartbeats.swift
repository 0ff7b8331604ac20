import Foundation
import HeraldRedis

/// Nodes' heartbeats (`ClusterKeys.nodes`: node → milliseconds, beaten every second by each node's
/// publisher), read the one way every caller needs them.
extension RedisConnection {
    /// Seconds since `node` last beat (infinity when it never did, or its entry was reaped).
    /// Thread: the connection's owner.
    func secondsSinceHeard(from node: String, keys: ClusterKeys) throws(RedisError) -> Double {
        guard let millis = try command("HGET", keys.nodes, node).string.flatMap({ Double($0) }) else { return .infinity }
        return Date().timeIntervalSince1970 - millis / 1000
    }
}
