import CLibWebSockets
import Foundation
import HeraldTestSupport
import HeraldEngine

/// A TLS client on a `RawSocket` (OpenSSL directly, the certificate not checked) for tests that must
/// misbehave over TLS as `RawSocket` does in the clear: a WebSocket that stops reading, HTTPS by hand.
/// Blocking, one thread.
final class TLSSocket {
    let raw: RawSocket
    private let context: OpaquePointer
    private let session: OpaquePointer

    /// Connects to 127.0.0.1 and completes the TLS handshake. `receiveBuffer` is the TCP socket's
    /// (a small one makes a reader that stalls stall at once).
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        raw = try RawSocket(port: port, receiveBuffer: receiveBuffer)
        // A server that stops serving must fail the test, not block it: the handshake and the
        // blocking writes give up after 10 s.
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(raw.descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(raw.descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw POSIXError(.ENOMEM) }
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        guard let session = SSL_new(context) else {
            SSL_CTX_free(context)
            throw POSIXError(.ENOMEM)
        }
        self.context = context
        self.session = session
        SSL_set_fd(session, raw.descriptor)
        guard SSL_connect(session) == 1 else { throw POSIXError(.EPROTO) }
    }

    deinit {
        SSL_free(session)
        SSL_CTX_free(context)
    }

    /// Ends the TLS session as a TLS client closing cleanly does: its close_notify, then a FIN,
    /// reading nothing more.
    func closeNotifyAndHangUp() {
        SSL_shutdown(session)
        raw.shutdownWrite()
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { SSL_write(session, $0.baseAddress, Int32($0.count)) }
            if written <= 0 { return }
            offset += Int(written)
        }
    }

    /// Reads until `marker` has been read, the connection ends or `timeout` passes: what was read,
    /// and whether the connection ended (the peer's close_notify, its FIN, or a reset).
    func read(until marker: String? = nil, timeout: Double) -> (bytes: [UInt8], ended: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let needle = marker.map { Array($0.utf8) }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if SSL_pending(session) == 0 {
                var poller = pollfd(fd: raw.descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) >= 0 else { return (received, true) }
                if poller.revents == 0 { continue }
            }
            let count = SSL_read(session, &buffer, Int32(buffer.count))
            if count <= 0 {
                if SSL_get_error(session, count) == SSL_ERROR_WANT_READ { continue }
                return (received, true)
            }
            received += buffer[0..<Int(count)]
            if let needle, RawSocket.contains(Array(received.suffix(needle.count + Int(count))), needle) { return (received, false) }
        }
        return (received, false)
    }

    /// Opens a WebSocket over TLS by hand and returns once the server answered 101.
    static func webSocket(port: Int, receiveBuffer: Int32? = nil) throws -> TLSSocket {
        let socket = try TLSSocket(port: port, receiveBuffer: receiveBuffer)
        socket.send(
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        let answer = socket.read(until: "\r\n\r\n", timeout: 5).bytes
        guard String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw POSIXError(.EPROTO) }
        return socket
    }

    /// A complete HTTPS/1.1 exchange on a fresh connection: status code and body.
    static func http(port: Int, method: String = "GET", path: String, body: String = "") throws -> (status: Int, body: String) {
        let socket = try TLSSocket(port: port)
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if method == "POST" { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        socket.send(request + "\r\n" + body)
        let response = String(decoding: socket.read(timeout: 10).bytes, as: UTF8.self)
        let parts = response.components(separatedBy: "\r\n\r\n")
        let statusLine = parts.first?.split(separator: "\r\n").first ?? ""
        return (Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
