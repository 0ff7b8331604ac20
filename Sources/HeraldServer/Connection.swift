import HeraldEngine

/// One WebSocket client. Thread: the service thread only (created, used and dropped there).
final class Connection {
    let id: Int
    let peer: String
    var outbox: Outbox
    var commandBucket: TokenBucket
    /// Events up to this seq are already covered by what this client was sent (a snapshot or a resume).
    var coveredThrough: Int64 = 0
    /// The message being received, across fragments.
    var inbound: [UInt8] = []
    var inboundIsBinary = false
    /// Set when the connection must close at its next writable callback, with this code and reason.
    var pendingClose: (code: UInt16, reason: String)?
    /// Whether `auth` (or the handshake) presented the control token.
    var isAuthorized: Bool
    var closeCodeFromPeer: UInt16?
    /// A connection to the test-only `/echo` endpoint: no events, every message echoed.
    var isEcho = false

    init(id: Int, peer: String, outbox: Outbox, commandBucket: TokenBucket, isAuthorized: Bool) {
        self.id = id
        self.peer = peer
        self.outbox = outbox
        self.commandBucket = commandBucket
        self.isAuthorized = isAuthorized
    }
}
