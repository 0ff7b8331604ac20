internal import CLibWebSockets

/// The one C callback of the client's protocol: runs on a `ClientService`'s thread, recovers
/// the service and the connection, turns the reason into a value and calls one method.
func heraldClientCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let lwsContext = lws_get_context(wsi), let owner = lws_context_user(lwsContext) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let service = Unmanaged<ClientService>.fromOpaque(owner).takeUnretainedValue()
    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
        service.processRequests()
        return 0
    }
    guard let opaque = lws_get_opaque_user_data(wsi) else { return lws_callback_http_dummy(wsi, reason, user, input, length) }
    let connection = Unmanaged<ClientConnection>.fromOpaque(opaque).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
    switch reason {
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
        guard let input else { return 0 }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        return connection.appendHeaders(wsi: wsi, cursor: cursor, end: cursor.pointee.map { $0 + length })
    case LWS_CALLBACK_CLIENT_ESTABLISHED: return service.established(connection, wsi: wsi)
    case LWS_CALLBACK_CLIENT_RECEIVE: return service.received(bytes, on: connection, wsi: wsi)
    case LWS_CALLBACK_CLIENT_WRITEABLE: return service.writeable(connection, wsi: wsi)
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        connection.peerCloseCode = length >= 2 ? UInt16(bytes[0]) << 8 | UInt16(bytes[1]) : nil
        connection.peerCloseReason = length > 2 ? String(decoding: bytes[2...], as: UTF8.self) : ""
        return 0
    case LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION:
        // OpenSSL's verify callback, per certificate: `user` is the X509_STORE_CTX, `length` its
        // preverify_ok. Returning 0 leaves OpenSSL's verdict as it is; a refusal still fails the handshake.
        if length == 0, let user {
            let code = X509_STORE_CTX_get_error(OpaquePointer(user))
            service.certificateRefused(connection, reason: String(cString: X509_verify_cert_error_string(Int(code))))
        }
        return 0
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
        service.failed(connection, wsi: wsi, error: why)
        return 0
    case LWS_CALLBACK_CLIENT_CLOSED:
        service.ended(connection, wsi: wsi, code: connection.peerCloseCode, reason: connection.peerCloseReason ?? "closed")
        return 0
    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}
