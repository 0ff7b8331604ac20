import HeraldEngine
import HeraldServer
internal import CLibWebSockets

/// Plain HTTP on the same port: reading requests off the socket and writing responses. What a
/// request means is the hub's business (`StreamHub.httpRequest`). Thread: the service thread.
extension WebSocketServer {
    func beginHTTP(uri: String, on wsi: OpaquePointer) -> CallbackAction {
        forgetExchange(wsi)
        let method = LWSHeaders.method(wsi)
        let request = HTTPRequest(
            method: method, path: uri, query: LWSHeaders.query(wsi),
            authorization: LWSHeaders.value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION), origin: LWSHeaders.value(wsi, WSI_TOKEN_ORIGIN),
            cookie: LWSHeaders.value(wsi, WSI_TOKEN_HTTP_COOKIE), proxyUser: proxyUser(wsi), peer: LWSHeaders.peer(wsi),
            host: LWSHeaders.value(wsi, WSI_TOKEN_HOST))
        let exchange = HTTPExchange(id: makeID(), request: request)
        exchanges[wsi] = exchange
        sockets[exchange.id] = wsi
        let length = LWSHeaders.value(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH)
        if length == nil, Self.methodsLWSReadsABodyOf.contains(method) {
            // lws reads a POST, PUT or PATCH that declares no length as one with a body of up to 100 MB,
            // so the connection's next requests would be taken for this one's body and never answered.
            // Such a request has no body (RFC 9112, 6.3) and is answered as one; a chunked body lws
            // cannot read at all. Either way the connection closes after the answer.
            exchange.closeAfterResponse = true
            if LWSHeaders.value(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) != nil {
                let why = "a chunked request body cannot be read: send it with a Content-Length"
                respond(exchange.id, .error(EngineError(.badRequest, why)))
                return .proceed
            }
        }
        // Every request's body is read before it is answered, whatever its method: lws 4.1.6, when a
        // keep-alive request's answer goes out before its body has come, takes the next request on that
        // connection for one whose body is still due, calls for that body's end over and over on its
        // service thread and never writes the answer. A body that will not fit is refused unread, and
        // its connection closes after the answer.
        let declared = length.flatMap { Int($0) } ?? 0
        if declared > configuration.maxBodyBytes {
            refuseBody(exchange)
            return .proceed
        }
        if declared <= 0 { return completeBody(on: wsi) }
        if Self.expectsContinue(wsi), !sendContinue(on: wsi) { return .close }
        // The body arrives in HTTP_BODY callbacks; HTTP_BODY_COMPLETION hands the request on.
        return .proceed
    }

    /// Whether the client waits for an interim `100 Continue` before it sends the body (RFC 9110,
    /// 10.1.1). lws 4.1.6 sends none, so such a client waits for its own timeout first (curl's is a
    /// second). An HTTP/1.0 request's expectation is ignored, as the RFC asks (an HTTP/2 request
    /// names no version in lws's headers).
    private static func expectsContinue(_ wsi: OpaquePointer) -> Bool {
        guard let expect = LWSHeaders.value(wsi, WSI_TOKEN_HTTP_EXPECT) else { return false }
        return expect.lowercased() == "100-continue" && LWSHeaders.value(wsi, WSI_TOKEN_HTTP) != "HTTP/1.0"
    }

    /// Writes the interim `100 Continue` (a status line, or an HTTP/2 HEADERS frame) before any
    /// answer: lws queues what the socket does not take at once and sends it ahead of the final
    /// response. False when the connection failed.
    private func sendContinue(on wsi: OpaquePointer) -> Bool {
        let pre = herald_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + 256)
        let written = buffer.withUnsafeMutableBufferPointer { raw -> Int32 in
            let start = raw.baseAddress! + pre
            let end = raw.baseAddress! + raw.count - 1
            var cursor: UnsafeMutablePointer<UInt8>? = start
            guard lws_add_http_header_status(wsi, 100 | UInt32(LWSAHH_FLAG_NO_SERVER_NAME), &cursor, end) == 0 else { return -1 }
            return lws_finalize_write_http_header(wsi, start, &cursor, end)
        }
        return LWSResult.succeeded(written == 0 ? 0 : -1, "writing 100 Continue", logger: logger)
    }

    /// The methods whose requests lws takes to have a body when they declare no Content-Length.
    static let methodsLWSReadsABodyOf: Set<String> = ["POST", "PUT", "PATCH"]

    func receiveBody(_ bytes: UnsafeRawBufferPointer, on wsi: OpaquePointer) -> CallbackAction {
        guard let exchange = exchanges[wsi], !exchange.isComplete else { return .proceed }
        guard exchange.request.body.count + bytes.count <= configuration.maxBodyBytes else {
            refuseBody(exchange)
            return .proceed
        }
        exchange.request.body.append(contentsOf: bytes)
        return .proceed
    }

    func completeBody(on wsi: OpaquePointer) -> CallbackAction {
        guard let exchange = exchanges[wsi], !exchange.isComplete else { return .proceed }
        exchange.isComplete = true
        hub.httpRequest(exchange.id, exchange.request, into: &actions)
        return .proceed
    }

    /// A body over the limit: a 413 at once, and the connection closes after it.
    private func refuseBody(_ exchange: HTTPExchange) {
        exchange.isComplete = true
        exchange.closeAfterResponse = true
        respond(exchange.id, .error(EngineError(.tooLarge, "request body over \(configuration.maxBodyBytes) bytes")))
    }

    /// Sets the exchange's response and asks to write it. A response for an exchange that is gone
    /// (the client left, or a later request on the same connection replaced it) is dropped.
    func respond(_ id: ConnectionID, _ response: HTTPResponse) {
        guard let wsi = sockets[id], let exchange = exchanges[wsi], exchange.id == id, exchange.response == nil else { return }
        exchange.isComplete = true
        exchange.response = response
        logger.debug("\(exchange.request.method) \(exchange.request.path) → \(response.status)")
        lws_callback_on_writable(wsi)
    }

    /// Headers and the first body chunk in one callback, then the rest in chunks, then the
    /// transaction ends (keep-alive).
    func writeHTTP(to wsi: OpaquePointer) -> CallbackAction {
        guard let exchange = exchanges[wsi], let response = exchange.response else { return .proceed }
        let pre = herald_lws_pre()
        if !exchange.headersSent {
            exchange.headersSent = true
            var buffer = [UInt8](repeating: 0, count: pre + 4096)
            let written = buffer.withUnsafeMutableBufferPointer { raw -> Int32 in
                let start = raw.baseAddress! + pre
                let end = raw.baseAddress! + raw.count - 1
                var cursor: UnsafeMutablePointer<UInt8>? = start
                var result = lws_add_http_common_headers(
                    wsi, UInt32(response.status), response.contentType, lws_filepos_t(response.body.count), &cursor, end)
                for (name, value) in HTTPResponse.securityHeaders + response.headers
                    + (exchange.closeAfterResponse ? [("connection:", "close")] : [])
                where result == 0 {
                    result = lws_add_http_header_by_name(wsi, name, value, Int32(value.utf8.count), &cursor, end)
                }
                return result == 0 ? lws_finalize_write_http_header(wsi, start, &cursor, end) : result
            }
            guard LWSResult.succeeded(written == 0 ? 0 : -1, "writing HTTP headers", logger: logger) else { return .close }
            // The body's first chunk goes in the same callback: lws queues whatever the socket does
            // not take behind the headers, so one turn of a busy loop is saved per response.
        }
        let chunk = min(32 * 1024, response.body.count - exchange.bodyOffset)
        let isLast = exchange.bodyOffset + chunk >= response.body.count
        var buffer = [UInt8](repeating: 0, count: pre + chunk)
        buffer.replaceSubrange(pre..<(pre + chunk), with: response.body[exchange.bodyOffset..<(exchange.bodyOffset + chunk)])
        let written = buffer.withUnsafeMutableBufferPointer { raw in
            lws_write(wsi, raw.baseAddress! + pre, chunk, isLast ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        guard LWSResult.succeeded(Int32(clamping: written), "lws_write", logger: logger) else { return .close }
        exchange.bodyOffset += chunk
        guard isLast else {
            lws_callback_on_writable(wsi)
            return .proceed
        }
        forgetExchange(wsi)
        if exchange.closeAfterResponse || lws_http_transaction_completed(wsi) != 0 { return .close }
        return .proceed
    }

    /// The exchange ended (answered, replaced by the next request, or its socket closed).
    func forgetExchange(_ wsi: OpaquePointer) {
        guard let exchange = exchanges.removeValue(forKey: wsi) else { return }
        sockets.removeValue(forKey: exchange.id)
        hub.closed(exchange.id, into: &actions)
    }
}
