import Glibc
internal import CLibWebSockets

/// Writes a WebSocket connection's frames (the hub's pre-framed batches) to its socket, and keeps
/// what the socket does not take until libwebsockets says it is writable again.
///
/// Why not `lws_write`, which keeps an unsent tail itself: libwebsockets 4.1, holding a connection's
/// tail, answers the peer's hang-up (end of stream) by waiting to flush the tail before it closes,
/// and its service loop then reads the same end of stream again at once, forever, without polling
/// or returning: one peer that hangs up while bytes are queued for it stops the whole server
/// (measured: 1,000 far-behind clients leaving at once; reproduced by
/// `SlowClientTests.testAPeerThatHangsUpWhileBytesAreQueuedForItDoesNotStopTheServer`). With
/// nothing buffered inside lws, it closes such a connection at once.
///
/// TLS connections still go through `lws_write` (their bytes must pass through lws's TLS session),
/// so lws keeps their tails and the hang remains possible there. HTTP responses go through
/// `lws_write` too: lws's HTTP/1 server does not read a connection while it holds output for it,
/// and a client hanging up mid-response was measured not to start the loop.
///
/// Thread: the service thread only (a stored property of `WebSocketServer`).
struct UnsentTails {
    enum Outcome {
        /// Every byte is with the kernel (or, for TLS, with lws).
        case sent
        /// Some bytes wait here; the connection was asked to call back when writable.
        case waiting
        /// The socket failed (the peer reset it): close the connection.
        case failed
    }

    private struct Tail {
        var bytes: [UInt8]
        var offset = 0
    }

    private var tails: [OpaquePointer: Tail] = [:]

    /// Connections with bytes waiting.
    var count: Int { tails.count }

    func holdsBytes(for wsi: OpaquePointer) -> Bool { !tails.isEmpty && tails[wsi] != nil }

    /// Writes `bytes` to the connection, after whatever waits for it already (callers flush first;
    /// anything still waiting puts all of `bytes` behind it).
    mutating func write(_ bytes: UnsafeMutableRawBufferPointer, to wsi: OpaquePointer) -> Outcome {
        guard !bytes.isEmpty else { return .sent }
        if !tails.isEmpty, tails[wsi] != nil {
            tails[wsi]!.bytes.append(contentsOf: bytes)
            return .waiting
        }
        if lws_is_ssl(wsi) != 0 {
            let written = lws_write(wsi, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, LWS_WRITE_HTTP)
            return written < 0 ? .failed : .sent
        }
        let sent = Self.send(UnsafeRawBufferPointer(bytes), to: lws_get_socket_fd(wsi))
        if sent < 0 { return .failed }
        if sent == bytes.count { return .sent }
        tails[wsi] = Tail(bytes: Array(bytes[sent...]))
        lws_callback_on_writable(wsi)
        return .waiting
    }

    /// Writes what waits for the connection: `.sent` when nothing waits any more.
    /// The common case, no tail anywhere, skips the lookup (a hash and a cache miss or two per write).
    mutating func flush(_ wsi: OpaquePointer) -> Outcome {
        guard !tails.isEmpty, var tail = tails[wsi] else { return .sent }
        let sent = tail.bytes.withUnsafeBytes { raw in
            Self.send(UnsafeRawBufferPointer(rebasing: raw[tail.offset...]), to: lws_get_socket_fd(wsi))
        }
        if sent < 0 {
            tails[wsi] = nil
            return .failed
        }
        tail.offset += sent
        if tail.offset == tail.bytes.count {
            tails[wsi] = nil
            return .sent
        }
        tails[wsi] = tail
        lws_callback_on_writable(wsi)
        return .waiting
    }

    /// The connection is gone (its pointer may be reused for the next one).
    mutating func forget(_ wsi: OpaquePointer) { tails[wsi] = nil }

    /// Bytes the kernel took now (0 when the socket is full), or -1 when the socket failed.
    private static func send(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int {
        guard descriptor >= 0 else { return -1 }
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if sent > 0 {
                offset += sent
                continue
            }
            if sent < 0, errno == EINTR { continue }
            if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
            return -1
        }
        return offset
    }
}
