/// An HTTP request as the router sees it, already read off the socket by the service thread.
public struct HTTPRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    public var body: [UInt8]
    public var authorization: String?
    /// The `Origin` header: a page of another origin that imports `/client.js` sends it.
    public var origin: String?
    /// The `Cookie` header, for the sign-in session.
    public var cookie: String?
    /// The trusted proxy's user header (`--trust-user-header`), when the server names one.
    public var proxyUser: String?
    /// The peer's numeric address.
    public var peer: String
    /// The `Host` header: the address a share link's URL names.
    public var host: String?

    public init(
        method: String, path: String, query: [String: String] = [:], body: [UInt8] = [], authorization: String? = nil,
        origin: String? = nil, cookie: String? = nil, proxyUser: String? = nil, peer: String = "?", host: String? = nil
    ) {
        self.host = host
        self.cookie = cookie
        self.proxyUser = proxyUser
        self.peer = peer
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.authorization = authorization
        self.origin = origin
    }
}
