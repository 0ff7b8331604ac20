/// The hub's answer to a WebSocket handshake.
public enum HandshakeDecision: Equatable, Sendable {
    case accept
    case refuse(String)
}
