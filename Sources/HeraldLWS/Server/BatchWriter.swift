import Glibc
import HeraldEngine
internal import CLibWebSockets

/// Writes a WebSocket connection's batches of whole frames (the hub's) to its socket, keeps what
/// the socket does not take until it is writable again, and pauses the connection's reading
/// meanwhile.
///
/// Why reading pauses: lws answers a client's ping (and echoes its close frame) itself, in its own
/// writable handling, before it calls ours. A pong written while part of one of our frames still
/// waited for the socket landed inside that frame, and the client read a corrupt stream
/// (reproduced by `SlowClientTests.testAPingWhileTheServerHoldsPartOfAFrameIsAnsweredBetweenFrames`).
/// With reading paused from the moment a write is cut short until the last of it is out, no ping
/// is read meanwhile, so none is answered in the middle of a frame.
///
/// Where the rest of a cut write waits depends on whether a pong may already be pending. In the
/// writable callback none is (lws writes a pending pong instead of calling us), so the rest waits
/// here and goes out in the next writable callback, followed at once by the next batch. A write
/// made at once (`WebSocketServer.writeNow`, outside that callback) may follow a ping lws read
/// before: the rest is handed to lws (`lws_write`), which sends what it holds before anything
/// else, that pong included.
///
/// The pause also keeps the server alive: lws 4.1, holding bytes for a connection whose peer hangs
/// up, reads that end of stream, waits to flush before closing, and its service loop reads the
/// same end of stream again at once, forever, serving nothing else (many far-behind clients
/// leaving at once). Over TLS the same loop follows a client's close_notify read while lws holds
/// bytes of ours (reproduced by `TLSSlowClientTests`, with the TLS branch below not pausing).
/// Paused, lws never reads it; the keepalive sweep finds such peers (`hungUp`) and drops them
/// (`SlowClientTests.testAPeerThatHangsUpWhileItIsNotReadIsDroppedAtTheNextSweep`).
///
/// A client that is always behind (a stream at full speed) would never be read, so a pause that
/// has lasted `longestPauseMicros` ends before the next batch: the writable callback resumes
/// reading and asks for another instead of writing, and so does the one after it, so that lws
/// reads what the client sent meanwhile (its pongs, its commands) before the next batch. Two,
/// because lws handles a socket's writable event before its readable one in the same turn: a batch
/// cut short in the first callback after resuming would pause reading again before lws looked at
/// the readable event of that turn (`SlowClientTests.testAClientAlwaysBehindStillHasItsCommandsRead`).
///
/// HTTP responses do not come here; they go through `lws_write`: lws's HTTP/1 server does not read
/// a connection while it holds output for it, so a client hanging up mid-response does not start
/// the loop.
///
/// Thread: the service thread only (a stored property of `WebSocketServer`).
struct BatchWriter {
    enum Outcome {
        /// Every byte is with the kernel (or, over TLS, with lws), and reading goes on.
        case sent
        /// Some bytes wait (here, or in lws); the writable callback will come for them, and the
        /// connection's reading is paused until they are out.
        case waiting
        /// Reading had been paused for `longestPauseMicros` and has resumed: ask for the writable
        /// callback again, and write nothing now, so that lws reads first (twice in a row).
        case readFirst
        /// The socket failed (the peer reset it): close the connection.
        case failed
    }

    /// Where the rest of a cut write waits.
    enum Holder {
        /// Here, until the next writable callback (`flush`): no pong can be pending.
        case writer
        /// In lws, which sends it before anything else: a pong may be pending.
        case libwebsockets
    }

    /// How long a connection's reading may stay paused before a writable callback lets lws read.
    static let longestPauseMicros: Int64 = 1_000_000

    private struct Tail {
        var bytes: [UInt8]
        var offset = 0
    }

    private var tails: [OpaquePointer: Tail] = [:]
    /// The connections whose reading is paused, and since when (monotonic microseconds).
    private var paused: [OpaquePointer: Int64] = [:]
    /// The connections whose reading resumed after a long pause: their next writable callback
    /// writes nothing either, so that lws gets to their readable event first.
    private var reading: Set<OpaquePointer> = []

    /// Whether the connection's reading is paused: bytes of it wait (here or in lws), or did until
    /// the writable callback that is to resume it.
    func isPaused(_ wsi: OpaquePointer) -> Bool { !paused.isEmpty && paused[wsi] != nil }

    /// Writes `bytes` to a connection nothing waits for (callers `flush` first, or check
    /// `isPaused` and `lws_partial_buffered`): our own `send()`, or `lws_write` over TLS (lws owns
    /// the TLS session, and keeps what the socket refuses). When the socket takes only part,
    /// `keeping(sent)` says how much of the rest is to be sent later (the hub may take back whole
    /// frames, `StreamHub.cutShort`); nothing kept, nothing waits, and the writable callback is asked
    /// for the frames taken back.
    mutating func write(
        _ bytes: UnsafeMutableRawBufferPointer, to wsi: OpaquePointer, restTo holder: Holder, keeping: (Int) -> Int
    ) -> Outcome {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .sent }
        if lws_is_ssl(wsi) != 0 {
            if lws_write(wsi, base.assumingMemoryBound(to: UInt8.self), bytes.count, LWS_WRITE_HTTP) < 0 { return .failed }
            guard lws_partial_buffered(wsi) != 0 else {
                resume(wsi)
                return .sent
            }
            pause(wsi)
            return .waiting
        }
        let taken = Self.send(UnsafeRawBufferPointer(bytes), to: lws_get_socket_fd(wsi))
        if taken < 0 { return .failed }
        if taken == bytes.count {
            resume(wsi)
            return .sent
        }
        let rest = min(bytes.count - taken, keeping(taken))
        if rest == 0 {
            resume(wsi)
            lws_callback_on_writable(wsi)
            return .waiting
        }
        switch holder {
        case .writer:
            tails[wsi] = Tail(bytes: Array(bytes[taken..<taken + rest]))
            lws_callback_on_writable(wsi)
        case .libwebsockets:
            // lws tries the socket once more, keeps what it refuses and asks for the writable callback.
            if lws_write(wsi, base.assumingMemoryBound(to: UInt8.self) + taken, rest, LWS_WRITE_HTTP) < 0 { return .failed }
        }
        pause(wsi)
        return .waiting
    }

    /// From the writable callback: writes what waits here, if anything (lws has sent whatever it
    /// held before calling). `.sent` when the next batch may be written now.
    mutating func flush(_ wsi: OpaquePointer) -> Outcome {
        if !reading.isEmpty, reading.remove(wsi) != nil { return .readFirst }
        guard !paused.isEmpty, let since = paused[wsi] else { return .sent }
        if var tail = tails[wsi] {
            let sent = tail.bytes.withUnsafeBytes { raw in
                Self.send(UnsafeRawBufferPointer(rebasing: raw[tail.offset...]), to: lws_get_socket_fd(wsi))
            }
            if sent < 0 {
                tails[wsi] = nil
                return .failed
            }
            tail.offset += sent
            guard tail.offset == tail.bytes.count else {
                tails[wsi] = tail
                lws_callback_on_writable(wsi)
                return .waiting
            }
            tails[wsi] = nil
        }
        guard Self.monotonicMicros() - since >= Self.longestPauseMicros else { return .sent }
        resume(wsi)
        reading.insert(wsi)
        return .readFirst
    }

    /// Nothing of the connection's waits any more: its reading resumes if it was paused.
    mutating func resume(_ wsi: OpaquePointer) {
        if !paused.isEmpty, paused.removeValue(forKey: wsi) != nil { lws_rx_flow_control(wsi, 1) }
    }

    /// The connection is gone (its pointer may be reused for the next one).
    mutating func forget(_ wsi: OpaquePointer) {
        if !reading.isEmpty { reading.remove(wsi) }
        guard !paused.isEmpty else { return }
        paused[wsi] = nil
        tails[wsi] = nil
    }

    /// The paused connections whose peer has hung up (sent its FIN: the socket is in TCP's
    /// CLOSE_WAIT). lws, not reading them, does not see it; with reading on, lws closes such a
    /// connection when it reads the end of stream, so dropping them keeps that behaviour.
    func hungUp() -> [OpaquePointer] {
        paused.keys.filter { Self.peerHasHungUp(lws_get_socket_fd($0)) }
    }

    /// Pauses the connection's reading, from now unless it already was.
    private mutating func pause(_ wsi: OpaquePointer) {
        guard paused[wsi] == nil else { return }
        paused[wsi] = Self.monotonicMicros()
        lws_rx_flow_control(wsi, 0)
    }

    /// Monotonic microseconds, read only while a connection is paused.
    private static let clock = SystemClock()
    private static func monotonicMicros() -> Int64 { Int64(clock.now() * 1_000_000) }

    private static func peerHasHungUp(_ descriptor: Int32) -> Bool {
        guard descriptor >= 0 else { return false }
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(descriptor, Int32(SOL_TCP), TCP_INFO, &info, &length) == 0 else { return false }
        return Int32(info.tcpi_state) == Int32(TCP_CLOSE_WAIT)
    }

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
