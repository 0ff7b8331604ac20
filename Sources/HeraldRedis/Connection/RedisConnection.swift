internal import CHiredis
import Glibc

/// One blocking connection to a Redis server (hiredis 0.14's synchronous API).
///
/// **Not Sendable: one thread owns it.** Every call blocks that thread until the answer, the command
/// timeout or an error; create, use, close and release the connection on the same thread (or hand it
/// over only with a happens-before, e.g. through a serial queue).
///
/// **Timeouts.** `connectTimeout` bounds the connect; `commandTimeout` bounds each wait for the
/// socket (SO_RCVTIMEO/SO_SNDTIMEO through redisSetTimeout). A blocking command waits on the server
/// side first, so the command timeout must be longer than any `BLOCK` or `BLPOP` wait, or the
/// connection dies as if the server had hung: e.g. `XREAD BLOCK 1000` with a 3 s command timeout
/// (`setCommandTimeout` changes it per connection). Redis checks `BLOCK` timeouts in ~100 ms steps.
///
/// **Dead connections.** After an I/O error, an EOF (the server stopped or was killed), a timeout or
/// a protocol error the hiredis context cannot be used again: it is freed at once, `isBroken` turns
/// true, and every later call throws that same error without touching C. Make a new connection
/// (with a `RedisBackoff`). While the server is down a connect fails at once with `.refused`; a
/// connect can also reach a server that is dying, and then the first command fails.
///
/// **Error replies** (`-ERR …`) are returned as `RedisReply.error`, not thrown; the connection stays
/// good. hiredis writes with write(2), so a write to a dead server would raise SIGPIPE: the first
/// connection makes the process ignore SIGPIPE (herald's commands do anyway), and a failed write
/// becomes an I/O error.
public final class RedisConnection {
    public let address: RedisAddress
    /// The command timeout in force, in seconds.
    public private(set) var commandTimeout: Double
    /// Nil once closed or broken.
    private var context: UnsafeMutablePointer<redisContext>?
    /// The error that killed the context; rethrown by every later call.
    private var failure: RedisError?
    /// Script source → its SHA1 on this server, filled by `evaluate`.
    var scriptHashes: [String: String] = [:]

    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Connects, sets the command timeout, logs in (`AUTH`, when the address has a password) and
    /// selects the address's database: every connection, the first and each reconnect, does all
    /// three. Throws `.refused`, `.timeout`, `.io` (e.g. an unknown host), `.authentication`,
    /// `.server` (SELECT refused) or `.invalidArgument`.
    public init(address: RedisAddress, connectTimeout: Double = 2, commandTimeout: Double = 5) throws(RedisError) {
        _ = Self.ignoreSIGPIPE
        try Self.check(connectTimeout, "connect timeout")
        try Self.check(commandTimeout, "command timeout")
        self.address = address
        self.commandTimeout = commandTimeout
        guard let context = redisConnectWithTimeout(address.host, Int32(address.port), Hiredis.timeval(connectTimeout)) else {
            throw .io(address, message: "hiredis could not allocate a connection")
        }
        self.context = context
        if context.pointee.err != 0 { throw fail(context, timeout: connectTimeout) }
        try setCommandTimeout(commandTimeout)
        if let password = address.password {
            // An ordinary command, so any hiredis version sends it; with a user for an ACL user.
            let login = (address.user.map { ["AUTH", $0] } ?? ["AUTH"]).map { Array($0.utf8) } + [Array(password.utf8)]
            if case .error(let message) = try command(login) {
                close()
                failure = .authentication(address, message: message)
                throw .authentication(address, message: message)
            }
        }
        if address.database != 0, case .error(let message) = try command("SELECT", String(address.database)) {
            if message.hasPrefix("NOAUTH") {
                close()
                throw .authentication(address, message: "\(message) (give the password in the URL or with --redis-password-file)")
            }
            close()
            throw .server("SELECT \(address.database): \(message)")
        }
    }

    deinit { close() }

    /// True once an error killed the connection (see the type's notes); calls then throw at once.
    public var isBroken: Bool { failure != nil }

    /// Sends one command (its words, binary-safe) and waits for the reply.
    public func command(_ arguments: [[UInt8]]) throws(RedisError) -> RedisReply {
        let context = try usableContext()
        guard !arguments.isEmpty else { throw .invalidArgument("a command needs at least its name") }
        guard let raw = Hiredis.withArgv(arguments, { redisCommandArgv(context, $0, $1, $2) }) else {
            throw fail(context, timeout: commandTimeout)
        }
        return try unlessLoading(Hiredis.take(raw))
    }

    public func command(_ arguments: [String]) throws(RedisError) -> RedisReply {
        try command(arguments.map { Array($0.utf8) })
    }

    public func command(_ arguments: String...) throws(RedisError) -> RedisReply {
        try command(arguments)
    }

    /// Sends every command, then reads every reply (one round trip for all): replies in order.
    public func pipeline(_ commands: [[[UInt8]]]) throws(RedisError) -> [RedisReply] {
        let context = try usableContext()
        guard commands.allSatisfy({ !$0.isEmpty }) else { throw .invalidArgument("a command needs at least its name") }
        for command in commands where Hiredis.withArgv(command, { redisAppendCommandArgv(context, $0, $1, $2) }) != REDIS_OK {
            throw fail(context, timeout: commandTimeout)
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw fail(context, timeout: commandTimeout) }
            replies.append(Hiredis.take(raw))
        }
        // Redis reads a pipeline's commands in one go: all of them are refused LOADING, or none.
        for reply in replies { _ = try unlessLoading(reply) }
        return replies
    }

    /// `reply`, unless it is Redis's `LOADING` refusal: then the connection counts as lost (`.loading`).
    private func unlessLoading(_ reply: RedisReply) throws(RedisError) -> RedisReply {
        guard let message = reply.errorMessage, message.hasPrefix("LOADING") else { return reply }
        failure = .loading(address)
        close()
        throw .loading(address)
    }

    /// Bounds each later wait for the socket to `seconds` (see the type's notes on BLOCK).
    public func setCommandTimeout(_ seconds: Double) throws(RedisError) {
        let context = try usableContext()
        try Self.check(seconds, "command timeout")
        guard redisSetTimeout(context, Hiredis.timeval(seconds)) == REDIS_OK else { throw fail(context, timeout: seconds) }
        commandTimeout = seconds
    }

    /// Closes the connection; later calls throw `.closed` (or the error that broke it). Idempotent.
    public func close() {
        if let context { redisFree(context) }
        context = nil
        scriptHashes = [:]
    }

    private func usableContext() throws(RedisError) -> UnsafeMutablePointer<redisContext> {
        if let context { return context }
        throw failure ?? .closed(address)
    }

    /// Records the error in `context`, frees it (it cannot be used again) and returns the error.
    private func fail(_ context: UnsafeMutablePointer<redisContext>, timeout: Double) -> RedisError {
        let error = Hiredis.error(of: context, address: address, timeout: timeout)
        failure = error
        close()
        return error
    }

    private static func check(_ seconds: Double, _ what: String) throws(RedisError) {
        guard seconds.isFinite, seconds > 0, seconds < 1e6 else {
            throw .invalidArgument("the \(what) must be a positive number of seconds, not \(seconds)")
        }
    }
}

/// One thread owns a connection (see above): the compiler refuses to send one to another task.
@available(*, unavailable)
extension RedisConnection: Sendable {}
