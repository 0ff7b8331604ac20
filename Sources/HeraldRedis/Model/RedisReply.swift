/// One reply from Redis, copied out of hiredis's reply tree (which is freed at once). A plain value;
/// any thread.
///
/// An error reply (`-ERR …`, `-NOSCRIPT …`) is a value here, not a thrown error: the connection is
/// fine and the caller decides what it means.
public enum RedisReply: Sendable, Equatable {
    /// A simple string: `OK`, `PONG`, `QUEUED`.
    case status(String)
    case error(String)
    case integer(Int64)
    /// A bulk string, byte for byte (binary-safe).
    case bulk([UInt8])
    /// A missing value: GET of no key, or XREAD BLOCK that timed out.
    case null
    case array([RedisReply])

    /// A status, or a bulk string that is valid UTF-8.
    public var string: String? {
        switch self {
        case .status(let text): text
        case .bulk(let bytes): String(validating: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// A bulk string's bytes, or a status's.
    public var bytes: [UInt8]? {
        switch self {
        case .bulk(let bytes): bytes
        case .status(let text): Array(text.utf8)
        default: nil
        }
    }

    public var integer: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    public var array: [RedisReply]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// The message of an error reply (`ERR unknown command …`).
    public var errorMessage: String? {
        if case .error(let message) = self { message } else { nil }
    }

    public var isError: Bool { errorMessage != nil }

    public var isNull: Bool { self == .null }
}
