import HeraldRedis

/// Why a cluster step failed: Redis could not be used, or it answered what a node cannot read.
public enum ClusterFailure: Error, CustomStringConvertible {
    case redis(RedisError)
    case unexpected(String)
    /// The node cannot join as it is (another node has its name).
    case refused(String)

    public var description: String {
        switch self {
        case .redis(let error): return error.description
        case .unexpected(let what): return "unexpected answer from Redis: \(what)"
        case .refused(let why): return why
        }
    }
}
