/// What a WebSocket handshake said, read off the request by the transport before lws frees it.
public struct Handshake: Sendable {
    public var path: String
    public var origin: String?
    public var host: String
    public var query: [String: String]
    /// The `Authorization` header, if any.
    public var authorization: String?
    public var peer: String

    public init(
        path: String, origin: String? = nil, host: String = "", query: [String: String] = [:], authorization: String? = nil,
        peer: String = "?"
    ) {
        self.path = path
        self.origin = origin
        self.host = host
        self.query = query
        self.authorization = authorization
        self.peer = peer
    }
}
