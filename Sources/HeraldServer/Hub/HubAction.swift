import HeraldEngine

/// What the hub asks its transport to do. The transport performs each at once, in order.
public enum HubAction: Sendable {
    /// Call back with `StreamHub.writable` when the connection's socket takes more.
    case wantWritable(ConnectionID)
    /// Send this request to the engine; post its reply to the inbox as `.answer(ticket, reply)`.
    case ask(EngineRequest, HubTicket)
    /// Answer an HTTP exchange.
    case respond(ConnectionID, HTTPResponse)
    /// Read a dashboard file off the service thread; post the response as `.file(id, response)`.
    case readFile(ConnectionID, path: String)
}

/// The hub's answer to a WebSocket handshake.
public enum HandshakeDecision: Equatable, Sendable {
    case accept
    case refuse(String)
}

/// What a WebSocket handshake said, read off the request by the transport before lws frees it.
public struct Handshake: Sendable {
    public var path: String
    public var origin: String?
    public var host: String
    public var query: [String: String]
    /// The `Authorization` header, if any.
    public var authorization: String?
    public var peer: String

    public init(path: String, origin: String? = nil, host: String = "", query: [String: String] = [:], authorization: String? = nil, peer: String = "?") {
        self.path = path
        self.origin = origin
        self.host = host
        self.query = query
        self.authorization = authorization
        self.peer = peer
    }
}

/// What a writable callback should do.
public enum WriteStep: Equatable, Sendable {
    /// Nothing to write.
    case idle
    /// The buffer holds `frames` whole frames to write with one raw write; `more` asks for another
    /// writable callback afterwards.
    case write(frames: Int, more: Bool)
    /// Send a close frame with this code and reason, then close.
    case close(code: UInt16, reason: String)
}
