/// A libwebsockets callback reason, turned into a Swift value as soon as it arrives.
/// Buffers are only valid during the callback that carries them.
enum ServiceEvent {
    /// A WebSocket handshake: decide whether to accept it (path, origin, limits).
    case filterConnection
    case established
    case receive(UnsafeRawBufferPointer)
    /// A pong frame arrived (an answer to the keepalive's ping, or a peer's own heartbeat).
    case pong
    case writeable
    /// The peer sent a close frame with this code (nil when it had none).
    case peerClose(code: UInt16?)
    case closed
    /// The socket is being freed; arrives for every socket, also one whose handshake never completed.
    case destroyed
    /// `lws_cancel_service` woke the loop: deliveries or a stop are waiting. Arrives once per protocol.
    case wakeUp
    /// Several service threads: this thread's listening socket has connections to accept.
    case listenerReadable
    case http(uri: String)
    case httpBody(UnsafeRawBufferPointer)
    case httpBodyComplete
    case httpWriteable
    case httpClosed
}

extension ServiceEvent {
    /// Reads and writes, which come by the thousand a second on a busy server.
    var isTraffic: Bool {
        switch self {
        case .receive, .pong, .writeable, .httpBody, .httpWriteable: return true
        default: return false
        }
    }
}
