/// What a WebSocket handshake said, read off the request by the transport before lws frees it.
public struct Handshake: Sendable {
    public var path: String
    public var origin: String?
    public var host: String
    public var query: [String: String]
    /// The `Authorization` header, if any.
    public var authorization: String?
    /// The `Cookie` header, for the sign-in session.
    public var cookie: String?
    /// The trusted proxy's user header (`--trust-user-header`), when the server names one.
    public var proxyUser: String?
    public var peer: String

    public init(
        path: String, origin: String? = nil, host: String = "", query: [String: String] = [:], authorization: String? = nil,
        cookie: String? = nil, proxyUser: String? = nil, peer: String = "?"
    ) {
        self.cookie = cookie
        self.proxyUser = proxyUser
        self.path = path
        self.origin = origin
        self.host = host
        self.query = query
        self.authorization = authorization
        self.peer = peer
    }
}
