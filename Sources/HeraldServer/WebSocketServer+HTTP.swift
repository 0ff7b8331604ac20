import CLibWebSockets
import HeraldEngine

/// Plain HTTP on the same port: the REST API, health, metrics and the dashboard's files.
/// Thread: the service thread.
extension WebSocketServer {
    func beginHTTP(uri: String, on wsi: OpaquePointer) -> CallbackAction {
        let method = LWSHeaders.method(wsi)
        let request = HTTPRequest(
            method: method, path: uri, query: LWSHeaders.query(wsi),
            authorization: LWSHeaders.value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION))
        let exchange = HTTPExchange(request: request)
        exchanges[wsi] = exchange
        if method == "POST" {
            let declared = LWSHeaders.value(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap { Int($0) } ?? 0
            if declared > configuration.maxBodyBytes {
                // Refused before the body is read: answer now and close after the answer.
                exchange.closeAfterResponse = true
                respond(exchange, .error(EngineError(.tooLarge, "request body over \(configuration.maxBodyBytes) bytes")), on: wsi)
            } else if declared == 0 {
                return completeBody(on: wsi)
            }
            // Otherwise the body arrives in HTTP_BODY callbacks.
            return .proceed
        }
        if isClosing {
            respond(exchange, .error(EngineError(.shuttingDown, "the server is shutting down")), on: wsi)
            return .proceed
        }
        if uri == "/ws" {
            respond(exchange, .text("This is the WebSocket endpoint: connect with a WebSocket client.\n", status: 426), on: wsi)
            return .proceed
        }
        respond(exchange, route(request), on: wsi)
        return .proceed
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer, on wsi: OpaquePointer) -> CallbackAction {
        guard let exchange = exchanges[wsi], exchange.response == nil else { return .proceed }
        guard exchange.request.body.count + bytes.count <= configuration.maxBodyBytes else {
            exchange.closeAfterResponse = true
            respond(exchange, .error(EngineError(.tooLarge, "request body over \(configuration.maxBodyBytes) bytes")), on: wsi)
            return .proceed
        }
        exchange.request.body.append(contentsOf: bytes)
        return .proceed
    }

    func completeBody(on wsi: OpaquePointer) -> CallbackAction {
        guard let exchange = exchanges[wsi], exchange.response == nil else { return .proceed }
        respond(exchange, route(exchange.request), on: wsi)
        return .proceed
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        metrics.httpRequests += 1
        return api.respond(to: request, status: HTTPAPI.Status(metrics: metrics, uptimeSeconds: uptime()))
    }

    private func respond(_ exchange: HTTPExchange, _ response: HTTPResponse, on wsi: OpaquePointer) {
        exchange.response = response
        logger.debug("\(exchange.request.method) \(exchange.request.path) → \(response.status)")
        lws_callback_on_writable(wsi)
    }

    /// Headers in one callback, then the body in chunks, then the transaction ends (keep-alive).
    func writeHTTP(to wsi: OpaquePointer) -> CallbackAction {
        guard let exchange = exchanges[wsi], let response = exchange.response else { return .proceed }
        let pre = herald_lws_pre()
        if !exchange.headersSent {
            exchange.headersSent = true
            var buffer = [UInt8](repeating: 0, count: pre + 4096)
            let ok = buffer.withUnsafeMutableBufferPointer { raw -> Bool in
                let start = raw.baseAddress! + pre
                let end = raw.baseAddress! + raw.count - 1
                var cursor: UnsafeMutablePointer<UInt8>? = start
                if lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType, lws_filepos_t(response.body.count), &cursor, end) != 0 {
                    return false
                }
                for (name, value) in HTTPResponse.securityHeaders + response.headers + (exchange.closeAfterResponse ? [("connection:", "close")] : []) {
                    if lws_add_http_header_by_name(wsi, name, value, Int32(value.utf8.count), &cursor, end) != 0 { return false }
                }
                return lws_finalize_write_http_header(wsi, start, &cursor, end) == 0
            }
            guard ok else { return .close }
            lws_callback_on_writable(wsi)
            return .proceed
        }
        let chunk = min(32 * 1024, response.body.count - exchange.bodyOffset)
        let isLast = exchange.bodyOffset + chunk >= response.body.count
        var buffer = [UInt8](repeating: 0, count: pre + chunk)
        buffer.replaceSubrange(pre..<(pre + chunk), with: response.body[exchange.bodyOffset..<(exchange.bodyOffset + chunk)])
        let written = buffer.withUnsafeMutableBufferPointer { raw in
            lws_write(wsi, raw.baseAddress! + pre, chunk, isLast ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        guard written >= 0 else { return .close }
        exchange.bodyOffset += chunk
        guard isLast else {
            lws_callback_on_writable(wsi)
            return .proceed
        }
        exchanges.removeValue(forKey: wsi)
        if exchange.closeAfterResponse || lws_http_transaction_completed(wsi) != 0 { return .close }
        return .proceed
    }
}
