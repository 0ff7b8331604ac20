internal import CLibWebSockets

/// The one C callback of the server's protocol. It runs on the service thread only (libwebsockets
/// calls it from `lws_service`, `lws_create_context` and `lws_context_destroy`). It recovers the
/// `WebSocketServer` from the context's user pointer, turns the reason into a `ServiceEvent`, and
/// calls one method. No logic lives here.
func heraldServerCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let server = Unmanaged<WebSocketServer>.fromOpaque(owner).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
    let event: ServiceEvent
    switch reason {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: event = .filterConnection
    case LWS_CALLBACK_ESTABLISHED: event = .established
    case LWS_CALLBACK_RECEIVE: event = .receive(bytes)
    case LWS_CALLBACK_RECEIVE_PONG: event = .pong
    case LWS_CALLBACK_SERVER_WRITEABLE: event = .writeable
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        event = .peerClose(code: length >= 2 ? UInt16(bytes[0]) << 8 | UInt16(bytes[1]) : nil)
    case LWS_CALLBACK_CLOSED: event = .closed
    case LWS_CALLBACK_WSI_DESTROY: event = .destroyed
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: event = .wakeUp
    case LWS_CALLBACK_RAW_RX_FILE: event = .listenerReadable
    case LWS_CALLBACK_HTTP:
        event = .http(uri: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/")
    case LWS_CALLBACK_HTTP_BODY: event = .httpBody(bytes)
    case LWS_CALLBACK_HTTP_BODY_COMPLETION: event = .httpBodyComplete
    case LWS_CALLBACK_HTTP_WRITEABLE: event = .httpWriteable
    case LWS_CALLBACK_CLOSED_HTTP: event = .httpClosed
    default: return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    switch server.handle(event, on: wsi) {
    case .proceed: return 0
    case .close: return reason == LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION ? 1 : -1
    }
}
