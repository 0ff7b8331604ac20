/// Why a Redis call failed, with words for a person (`description` names the server).
///
/// `isConnectionLost` tells the caller what to do: when true the connection is dead (hiredis cannot
/// use a context after an I/O error, an EOF, a timeout or a protocol error; a late reply would be
/// taken for the next command's), so close it and reconnect with a `RedisBackoff`. When false the
/// connection is still good: the server refused one command, or the caller passed bad input.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL or address cannot be used; nothing was connected.
    case badURL(String, reason: String)
    /// Nothing listens at the address (while a server is down, connects fail at once like this).
    case refused(RedisAddress)
    /// Reading or writing the socket failed (a reset, an unknown host, …): the connection is dead.
    case io(RedisAddress, message: String)
    /// The server closed the connection (it stopped or was killed): the connection is dead.
    case eof(RedisAddress)
    /// No answer within the connect or command timeout (seconds): the connection is dead.
    case timeout(RedisAddress, seconds: Double)
    /// The server sent something that is not RESP: the connection is dead.
    case protocolError(RedisAddress, message: String)
    /// An error reply (`-ERR …`) where a helper cannot go on (SELECT, SCRIPT LOAD). Plain commands
    /// return such a reply as `RedisReply.error` instead of throwing.
    case server(String)
    /// A command with no words, or a timeout that is not a positive number of seconds.
    case invalidArgument(String)
    /// The connection was closed with `close()`.
    case closed(RedisAddress)
    /// Redis answered `LOADING`: it restarted and is still reading its data (an append-only file)
    /// and runs no command until it has. Taken as lost, so callers reconnect after a backoff and
    /// never read its not-yet-loaded keys as missing (an epoch, a job).
    case loading(RedisAddress)
    /// Redis refused the address's credentials (`AUTH`: a wrong password or user, a disabled user,
    /// or a password where the server wants none), or wants some and none were given (`NOAUTH`).
    /// The connection is closed: taken as lost, so a node retries it as it would a server that is
    /// down, and its operator can fix the password meanwhile. The message never holds the password.
    case authentication(RedisAddress, message: String)

    /// True when the connection that threw this is dead: make a new one (after a backoff).
    public var isConnectionLost: Bool {
        switch self {
        case .refused, .io, .eof, .timeout, .protocolError, .closed, .loading, .authentication: true
        case .badURL, .server, .invalidArgument: false
        }
    }

    public var description: String {
        switch self {
        case .badURL(let url, let reason): "bad Redis URL \(url): \(reason)"
        case .refused(let address): "Redis at \(address.endpoint) refused the connection (is redis-server running there?)"
        case .io(let address, let message): "Redis at \(address.endpoint): \(message)"
        case .eof(let address): "Redis at \(address.endpoint) closed the connection"
        case .timeout(let address, let seconds): "Redis at \(address.endpoint) did not answer within \(seconds) s"
        case .protocolError(let address, let message): "Redis at \(address.endpoint) broke the protocol: \(message)"
        case .server(let message): "Redis answered with an error: \(message)"
        case .invalidArgument(let message): "invalid Redis call: \(message)"
        case .closed(let address): "the connection to Redis at \(address.endpoint) was closed"
        case .loading(let address): "Redis at \(address.endpoint) is still loading its data"
        case .authentication(let address, let message):
            "Redis at \(address.endpoint) refused the login\(address.user.map { " of user \($0)" } ?? ""): \(message)"
        }
    }
}
