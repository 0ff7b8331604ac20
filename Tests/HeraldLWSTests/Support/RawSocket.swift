import Foundation
import HeraldTestSupport
import HeraldEngine

/// A plain TCP connection to 127.0.0.1 for tests that must misbehave (never read, send raw bytes)
/// or speak plain HTTP without a client library.
final class RawSocket {
    let descriptor: Int32
    /// Bytes a read took from the socket past what it looked for (the first frames, when they came
    /// in the same segment as the handshake's answer): the next read starts with them.
    private var unread: [UInt8] = []

    init(port: Int, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(descriptor) }

    /// Grows the receive buffer: a reader that stalled with a tiny one reads again at full speed.
    /// (Below one segment, Linux advertises no window update when the reader drains it, and the
    /// sender falls back to zero-window probes that back off for up to two minutes.)
    func setReceiveBuffer(_ bytes: Int32) {
        var size = bytes
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// The descriptor of this connection's other end in this process (a live test's server runs in
    /// the test process): the socket whose peer is this socket's local address. Looked for until
    /// the server has accepted the connection (`connect` returns before it does) or `timeout` passes.
    func acceptedEnd(timeout: Double = 10) -> Int32? {
        guard let local = Self.address(descriptor, peer: false) else { return nil }
        let deadline = Date(timeIntervalSinceNow: timeout)
        repeat {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            if let found = entries.compactMap({ Int32($0) }).first(where: { $0 != descriptor && Self.address($0, peer: true) == local }) {
                return found
            }
            usleep(1_000)
        } while Date() < deadline
        return nil
    }

    /// "address:port" of one end of a TCP socket, or nil for a descriptor that is not one.
    private static func address(_ descriptor: Int32, peer: Bool) -> String? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(descriptor, $0, &length) : getsockname(descriptor, $0, &length)
            }
        }
        guard result == 0, address.sin_family == sa_family_t(AF_INET) else { return nil }
        return "\(address.sin_addr.s_addr):\(address.sin_port)"
    }

    /// Sends a FIN and keeps the socket open (and unread): the server reads end-of-stream while the
    /// bytes it queued for this reader stay queued. Closing instead would answer them with a reset.
    func shutdownWrite() { shutdown(descriptor, Int32(SHUT_WR)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// The index just past the first occurrence of `needle` in `haystack`.
    private static func end(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start + needle.count
        }
        return nil
    }

    /// Gives the server's end of this connection a small, fixed send buffer (4 KiB), so that the
    /// server's writes are cut short as soon as this socket stops reading: the kernel does the same
    /// to many connections at once under TCP memory pressure (a thousand far-behind clients).
    /// Without it, loopback grows the buffer to 4 MiB and stops reporting the socket writable
    /// before a 64 KiB write could be cut short. Returns that end's descriptor.
    @discardableResult
    func shrinkServerSendBuffer() throws -> Int32 {
        guard let accepted = acceptedEnd() else { throw POSIXError(.ENOTCONN) }
        var small: Int32 = 4096
        setsockopt(accepted, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        return accepted
    }

    /// Starts a job over the REST API and returns its id.
    static func startJob(port: Int, _ body: String) throws -> String {
        let started = try http(port: port, method: "POST", path: "/api/jobs", body: body)
        guard let id = try JSONParser.parse(started.body)["id"]?.stringValue else { throw POSIXError(.EPROTO) }
        return id
    }

    /// Reads until the peer closes or `timeout` seconds pass without data.
    func readAll(timeout: Double = 5) -> [UInt8] {
        var result = unread
        unread = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, Int32(timeout * 1000)) > 0 {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            result.append(contentsOf: buffer[0..<count])
        }
        return result
    }

    /// Reads whatever comes for `seconds` (a stream that never pauses, which `readAll` would read
    /// for ever).
    func read(for seconds: Double) -> [UInt8] {
        var result = unread
        unread = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date(timeIntervalSinceNow: seconds)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while case let left = deadline.timeIntervalSinceNow, left > 0, poll(&poller, 1, Int32(left * 1000) + 1) > 0 {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            result.append(contentsOf: buffer[0..<count])
        }
        return result
    }

    /// One read of at most `count` bytes, waiting up to `timeout` seconds for them: a slow reader.
    func read(atMost count: Int, timeout: Double) -> [UInt8] {
        if !unread.isEmpty {
            defer { unread.removeFirst(min(count, unread.count)) }
            return Array(unread.prefix(count))
        }
        var buffer = [UInt8](repeating: 0, count: count)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return [] }
        let taken = recv(descriptor, &buffer, count, 0)
        return taken > 0 ? Array(buffer[0..<taken]) : []
    }

    /// Bytes the kernel holds for a socket: received and not read yet (`FIONREAD`), or written and
    /// not yet acknowledged by the peer (`TIOCOUTQ`).
    static func queuedBytes(_ descriptor: Int32, unread: Bool) -> Int {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(unread ? FIONREAD : TIOCOUTQ), &count) == 0 ? Int(count) : 0
    }

    /// Reads until `marker` has been read or `timeout` passes; true when it was. Keeps only what is
    /// new (and the marker's length before it), so megabytes of backlog cost no more than reading.
    func readBytes(until marker: String, timeout: Double) -> Bool {
        read(until: Array(marker.utf8), timeout: timeout, keeping: false, chunk: 65536).found
    }

    /// Whether `needle` occurs in `haystack`: a plain loop over raw buffers (fast in debug builds too).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                let first = pin[0]
                var index = 0
                while index <= hay.count - pin.count {
                    if hay[index] == first, memcmp(hay.baseAddress! + index, pin.baseAddress!, pin.count) == 0 { return true }
                    index += 1
                }
                return false
            }
        }
    }

    /// Reads until `marker` appears or `timeout` passes, and returns everything read.
    func read(until marker: String, timeout: Double = 5) -> String {
        String(decoding: read(until: Array(marker.utf8), timeout: timeout, keeping: true, chunk: 4096).bytes, as: UTF8.self)
    }

    /// Reads until `marker` appears or `timeout` passes, and returns every byte read (frames whole).
    func readKeepingBytes(until marker: String, timeout: Double = 5) -> [UInt8] {
        read(until: Array(marker.utf8), timeout: timeout, keeping: true, chunk: 4096).bytes
    }

    /// A server's frames (unmasked) as opcode and payload, in order; a frame cut short at the end is
    /// left out.
    static func frames(_ bytes: [UInt8]) -> [(opcode: UInt8, payload: [UInt8])] {
        var frames: [(opcode: UInt8, payload: [UInt8])] = []
        var index = 0
        while index + 2 <= bytes.count {
            var length = Int(bytes[index + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard index + 4 <= bytes.count else { break }
                length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                header = 4
            } else if length == 127 {
                guard index + 10 <= bytes.count else { break }
                length = (0..<8).reduce(0) { $0 << 8 | Int(bytes[index + 2 + $1]) }
                header = 10
            }
            guard index + header + length <= bytes.count else { break }
            frames.append((bytes[index] & 0x0F, Array(bytes[(index + header)..<(index + header + length)])))
            index += header + length
        }
        return frames
    }

    /// A client's ping with `payload` (at most 125 bytes): masked, as RFC 6455 requires of clients.
    static func maskedPing(_ payload: [UInt8]) -> [UInt8] {
        let mask: [UInt8] = [0x5A, 0x0C, 0xE1, 0x93]
        return [0x89, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// A client's text frame: masked, as RFC 6455 requires of clients.
    static func maskedTextFrame(_ payload: [UInt8]) -> [UInt8] {
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        return frame + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// The one read loop of both: stops at the marker, the peer's close, or the deadline. `keeping`
    /// returns all bytes read; otherwise only a window wide enough to find a marker split across reads.
    private func read(until needle: [UInt8], timeout: Double, keeping: Bool, chunk: Int) -> (found: Bool, bytes: [UInt8]) {
        var kept = unread
        unread = []
        if Self.contains(kept, needle) { return (true, kept) }
        var buffer = [UInt8](repeating: 0, count: chunk)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline, poll(&poller, 1, 100) >= 0 {
            if poller.revents == 0 { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return (false, kept) }
            // Search the new bytes with the marker's length before them (a marker split across reads).
            let window = Array(kept.suffix(needle.count - 1)) + buffer[0..<count]
            kept = keeping ? kept + buffer[0..<count] : window
            if Self.contains(window, needle) { return (true, kept) }
        }
        return (false, kept)
    }

    /// A complete HTTP/1.1 exchange on a fresh connection: status code and body; status 0 when no answer
    /// came within `timeout` seconds of quiet.
    static func http(
        port: Int, method: String = "GET", path: String, body: String = "", headers: [String] = [], timeout: Double = 5
    ) throws -> (status: Int, headers: String, body: String) {
        let socket = try RawSocket(port: port)
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for header in headers { request += header + "\r\n" }
        if method == "POST" { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + body
        socket.send(request)
        let response = String(decoding: socket.readAll(timeout: timeout), as: UTF8.self)
        let parts = response.components(separatedBy: "\r\n\r\n")
        let statusLine = parts.first?.split(separator: "\r\n").first ?? ""
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, parts.first ?? "", parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// Opens a WebSocket by hand (no client library) and returns once the server answered 101.
    static func webSocket(port: Int, receiveBuffer: Int32? = nil) throws -> RawSocket {
        let socket = try RawSocket(port: port, receiveBuffer: receiveBuffer)
        socket.send(
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        let terminator = Array("\r\n\r\n".utf8)
        let (found, bytes) = socket.read(until: terminator, timeout: 5, keeping: true, chunk: 4096)
        guard found, let end = Self.end(of: terminator, in: bytes), String(decoding: bytes[..<end], as: UTF8.self).hasPrefix("HTTP/1.1 101")
        else { throw POSIXError(.EPROTO) }
        // The snapshot may be written before this read and come in the same read as the answer
        // (seen under load: the test then waited for a snapshot it had thrown away): keep it.
        socket.unread = Array(bytes[end...])
        return socket
    }
}
