/// The hub's answer to a WebSocket handshake.
public enum HandshakeDecision: Equatable, Sendable {
    case accept
    case refuse(String)
    /// No credentials, or bad ones, where this server needs them: answered 401 before the upgrade.
    case unauthorized(String)
}
