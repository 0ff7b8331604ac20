/// What a `WebSocketClient` observes, in order.
public enum ClientEvent: Sendable, Equatable {
    case open
    case message(String)
    /// The connection ended: the close code the server sent (nil if none) and why.
    case closed(code: UInt16?, reason: String)
}
