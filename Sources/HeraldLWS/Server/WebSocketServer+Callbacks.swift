import Dispatch
import Glibc
import HeraldEngine
import HeraldServer
internal import CLibWebSockets
import HeraldSupport

/// Each libwebsockets callback, turned into one hub call; then the hub's actions are performed.
/// Thread: the service thread.
extension WebSocketServer {
    func handle(_ event: ServiceEvent, on wsi: OpaquePointer) -> CallbackAction {
        assertOnServiceThread()
        defer {
            performActions()
            // Several threads: the others' `/metrics` see this one's counters as of its last event
            // that was not a read or a write (those come too often to publish on).
            if fanOut != nil, !event.isTraffic { hub.publishMetrics() }
        }
        switch event {
        case .filterConnection:
            let id = assignID(wsi)
            let handshake = Handshake(
                path: LWSHeaders.value(wsi, WSI_TOKEN_GET_URI) ?? "", origin: LWSHeaders.value(wsi, WSI_TOKEN_ORIGIN),
                host: LWSHeaders.value(wsi, WSI_TOKEN_HOST) ?? "", query: LWSHeaders.query(wsi),
                authorization: LWSHeaders.value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION), cookie: LWSHeaders.value(wsi, WSI_TOKEN_HTTP_COOKIE),
                proxyUser: proxyUser(wsi), peer: LWSHeaders.peer(wsi))
            switch hub.handshake(id, handshake) {
            case .accept: return .proceed
            case .refuse: return .close
            case .unauthorized(let why):
                // Answered as HTTP before the upgrade: a client learns it needs credentials, not just
                // that the connection dropped.
                _ = lws_return_http_status(wsi, 401, why)
                return .close
            }
        case .established:
            guard let id = connectionID(of: wsi) else { return .close }
            hub.opened(id, now: uptime(), into: &actions)
            return .proceed
        case .receive(let bytes):
            guard let id = connectionID(of: wsi) else { return .proceed }
            let isFinal = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
            hub.received(id, bytes, isBinary: lws_frame_is_binary(wsi) != 0, isFinal: isFinal, now: uptime(), into: &actions)
            return .proceed
        case .pong:
            if let id = connectionID(of: wsi) { hub.heard(id, now: uptime()) }
            return .proceed
        case .writeable:
            guard let id = connectionID(of: wsi) else { return .proceed }
            return write(to: wsi, id: id)
        case .peerClose(let code):
            if let id = connectionID(of: wsi) { hub.peerClosed(id, code: code) }
            return .proceed
        case .closed, .destroyed:
            writer.forget(wsi)
            forget(wsi)
            return .proceed
        case .wakeUp:
            drainInbox(now: uptime())
            return .proceed
        case .listenerReadable:
            acceptConnections()
            return .proceed
        case .http(let uri): return beginHTTP(uri: uri, on: wsi)
        case .httpBody(let bytes): return receiveBody(bytes, on: wsi)
        case .httpBodyComplete: return completeBody(on: wsi)
        case .httpWriteable: return writeHTTP(to: wsi)
        case .httpClosed:
            forgetExchange(wsi)
            return .proceed
        }
    }

    /// A WebSocket's connection id rides on the socket itself (lws's opaque user pointer, which a
    /// server socket does not otherwise use; zero from its allocation until `assignID`), not in a
    /// dictionary keyed by the socket: every callback needs it, and with thousands of connections a
    /// dictionary lookup costs cache misses on every write.
    func connectionID(of wsi: OpaquePointer) -> ConnectionID? {
        lws_get_opaque_user_data(wsi).map { ConnectionID(bitPattern: $0) }
    }

    /// The trusted proxy's user header, when the server names one (`--trust-user-header`); whether
    /// the peer may set it is the hub's to decide (`--trusted-proxy`).
    func proxyUser(_ wsi: OpaquePointer) -> String? {
        guard let header = hub.access.settings.trustedProxy?.header else { return nil }
        return LWSHeaders.custom(wsi, header)
    }

    /// A new connection or exchange id: with several service threads it names this one
    /// (`ConnectionRouting`), so answers addressed to it come here.
    func makeID() -> ConnectionID {
        defer { nextSerial += 1 }
        return fanOut?.routing.id(serial: nextSerial, thread: threadIndex) ?? nextSerial
    }

    /// This thread's listening socket has connections waiting. Each is accepted (non-blocking: the
    /// loop ends when none is left) and handed to the context, which treats it as one its own
    /// listener accepted (HTTP, upgraded or not; TLS when configured). Out of descriptors, the thread
    /// stops watching the socket until its next sweep (`AcceptPause`).
    func acceptConnections() {
        guard let listener = listenerDescriptor, let vhost else { return }
        while true {
            let accepted = accept(listener, nil, nil)
            guard accepted >= 0 else {
                let error = errno
                switch acceptPause.failed(errno: error, now: uptime(), limit: OpenFilesLimit.current().soft) {
                case .acceptNext: continue
                case .waitForMore: return
                case .pause(let line):
                    if let line { logger.warning(line) }
                    // Applied by lws when this callback returns (the socket's POLLIN is dropped).
                    if let listenerSocket { lws_rx_flow_control(listenerSocket, 0) }
                    return
                }
            }
            if let line = acceptPause.accepted() { logger.info(line) }
            _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
            _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
            // As lws sets on what its own listener accepts: without it Nagle holds each small write
            // until the peer's delayed ACK, 40 ms a keep-alive request or a frame after a quiet moment.
            var on: Int32 = 1
            _ = setsockopt(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            if lws_adopt_socket_vhost(vhost, accepted) == nil { close(accepted) }
        }
    }

    func assignID(_ wsi: OpaquePointer) -> ConnectionID {
        forget(wsi)
        let id = makeID()
        lws_set_opaque_user_data(wsi, UnsafeMutableRawPointer(bitPattern: id))
        sockets[id] = wsi
        streamSockets.insert(wsi, id: id, descriptor: lws_get_socket_fd(wsi))
        return id
    }

    /// The socket is gone (closed, or destroyed before its handshake completed): the hub forgets it.
    func forget(_ wsi: OpaquePointer) {
        forgetExchange(wsi)
        guard let id = connectionID(of: wsi) else { return }
        lws_set_opaque_user_data(wsi, nil)
        sockets.removeValue(forKey: id)
        streamSockets.remove(id)
        hub.closed(id, into: &actions)
        noteBacklog()
    }

    /// The keepalive timer fired: the hub sweeps its connections, and the timer is set again.
    /// Connections whose reading is paused, and whose peer hung up meanwhile, are dropped: lws does
    /// not read them, so it would not see the end of stream (`BatchWriter`). A listening socket paused
    /// for want of descriptors is watched again.
    func keepaliveTick() {
        if acceptPause.sweep(), let listenerSocket { lws_rx_flow_control(listenerSocket, 1) }
        for wsi in writer.hungUp() { herald_drop(wsi) }
        hub.sweepKeepalive(now: uptime(), into: &actions)
        performActions()
        if let context, let keepaliveTimer { keepaliveTimer.schedule(on: context, after: StreamHub.keepaliveSweepSeconds) }
    }

    /// Takes one slice from the inbox (the hub bounds it) and wakes itself for the rest.
    ///
    /// The slice's writes go out at once when the stream had paused: the slice was all that waited,
    /// and the slice before it was taken at least `pauseBeforeWritingAtOnceMicros` ago, so a lone
    /// event reaches every client without waiting for a `poll()`. Slices that follow each other
    /// within microseconds (a producer at rate 0) wait for the pass of writable callbacks after the
    /// next `poll()`, which comes after the next slice was taken too, so that each connection's
    /// `send()` carries both: a `send()` per slice per connection would cost a fast stream much of
    /// its throughput. The pause is timed from the last slice, not the last write: an event that
    /// came while the pass of the one before was being written would find a write microseconds old,
    /// wait for the slower pass of callbacks, and so would every event after it, each a little later.
    /// (docs/benchmarks.md has the figures behind both.)
    func drainInbox(now: Double) {
        assertOnServiceThread()
        let more: Bool
        if let fanOut {
            let threadInbox = fanOut.inboxes[threadIndex]
            hub.deliver(threadInbox.drain(), now: now, into: &actions)
            threadInbox.noteTaken(endIndex: hub.ringEnd)
            more = false
        } else {
            let drained = inbox.drain(maxEntries: hub.sliceEntries, maxBytes: hub.sliceBytes)
            if drained.more { inbox.wake() }
            hub.deliver(drained, now: now, into: &actions)
            more = drained.more
        }
        // The monotonic clock (`uptime`): a pause is a duration, which a wall clock step must not change.
        let nowMicros = Int64(now * 1_000_000)
        let paused = !more && nowMicros - lastSliceMicros >= Self.pauseBeforeWritingAtOnceMicros
        lastSliceMicros = nowMicros
        performActions(writing: paused ? .now : .afterPoll)
        noteBacklog()
    }

    /// How long before a slice the one before it must have been taken for the slice to be written
    /// at once (`drainInbox`): far longer than the gaps of a continuous stream (microseconds), far
    /// shorter than those between the events of a stream people watch (10–100 ms).
    static let pauseBeforeWritingAtOnceMicros: Int64 = 1_000

    /// Tells the inbox how many connections are backlogged (the benchmark ticker's pacing reads it).
    /// After every delivery, write and close, not only after deliveries: a producer that waits for
    /// backlogs to shrink posts nothing, so a gauge refreshed only by deliveries would say "behind"
    /// until the producer gave up, stalling for good after its first backlog. Two relaxed stores.
    func noteBacklog() {
        let backlog = hub.backlogCount
        if let fanOut {
            fanOut.inboxes[threadIndex].noteBacklog(backlogged: backlog.backlogged, of: backlog.total)
        } else {
            inbox.noteBacklog(backlogged: backlog.backlogged, of: backlog.total)
        }
    }

    /// Writes what the hub gives for one writable callback: whole frames in one write, after the
    /// rest of the last one if the socket did not take all of it (lws has sent what it held before
    /// calling this). A connection whose reading was paused resumes it once nothing waits
    /// (`BatchWriter`).
    func write(to wsi: OpaquePointer, id: ConnectionID) -> CallbackAction {
        switch writer.flush(wsi) {
        case .failed: return .close
        case .waiting: return .proceed
        case .readFirst:
            lws_callback_on_writable(wsi)
            return .proceed
        case .sent: break
        }
        switch sendNextBatch(to: wsi, id: id, restTo: .writer) {
        case .nothing:
            writer.resume(wsi)
            return .proceed
        case .close(let code, let reason):
            // lws writes the close frame and reads the peer's answer to it: reading must be on.
            writer.resume(wsi)
            var text = Array(reason.utf8.prefix(120))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &text, text.count)
            return .close
        case .failed:
            return .close
        case .sent:
            noteBacklog()
            return .proceed
        }
    }

    /// What sending the hub's next batch to a connection came to (`sendNextBatch`).
    enum BatchOutcome {
        /// The hub had nothing to write.
        case nothing
        /// The hub says to close, with this code and reason; nothing was written.
        case close(code: UInt16, reason: String)
        /// The batch is with the kernel, or what the socket did not take waits (`BatchWriter`).
        case sent
        /// The socket failed (the peer reset it).
        case failed
    }

    /// Takes the hub's next batch for the connection and sends it: the part of `write(to:)` and
    /// `writeNow` that is the same. Asks for the writable callback again when the hub has more (a
    /// write cut short has asked already). `holder` says where the rest of a cut write waits.
    private func sendNextBatch(to wsi: OpaquePointer, id: ConnectionID, restTo holder: BatchWriter.Holder) -> BatchOutcome {
        let nowMicros = WallClock.micros()
        switch hub.writable(id, nowMicros: nowMicros, into: &batchBuffer, actions: &actions) {
        case .idle:
            return .nothing
        case .close(let code, let reason):
            return .close(code: code, reason: reason)
        case .write(_, let more):
            let count = batchBuffer.count
            let outcome = batchBuffer.withUnsafeMutableBytes { bytes in
                writer.write(bytes, to: wsi, restTo: holder) { sent in hub.cutShort(id, sent: sent, of: count) }
            }
            switch outcome {
            case .failed: return .failed
            case .sent: if more { lws_callback_on_writable(wsi) }
            case .waiting, .readFirst: break  // the writable callback was asked for with the bytes kept.
            }
            return .sent
        }
    }

    /// Writes what the hub has for a connection now, from the delivery's callback, instead of asking
    /// lws for a writable callback: a delivery's pass of writes then follows the delivery in the same
    /// turn of the loop, not one poll of every descriptor later (`drainInbox` says when). Safe
    /// because these writes are whole frames, and nothing can come between them: a socket lws holds
    /// bytes for, one whose reading is paused, or one over TLS (whose bytes must pass through lws)
    /// waits for the writable callback instead; a pong lws has yet to write for a ping it read
    /// before follows the batch, or whatever lws keeps of it if the socket cuts it short
    /// (`BatchWriter`); and once the hub means to close a connection it has nothing but the close
    /// for it (`pendingClose` ends its stream), so nothing follows the close frame lws sends, though
    /// lws then keeps the socket open for the peer's.
    ///
    /// One order does change: lws writes the pong to a client's ping in its own writable handling,
    /// so a delivery written at once (an event, or an engine's answer that came with it) may reach
    /// the client before a pong lws has yet to write; RFC 6455 sets no order between a pong and
    /// other frames. What the hub answers from the client's message itself (the echo endpoint, the
    /// `ping` command, refusals) is never written at once, so it follows lws's pong, as Autobahn's
    /// cases 5.6–5.9 and `test_fragmented_command_with_a_ping_between_fragments_works` expect.
    func writeNow(to wsi: OpaquePointer, id: ConnectionID) {
        guard lws_is_ssl(wsi) == 0, !writer.isPaused(wsi), lws_partial_buffered(wsi) == 0 else {
            lws_callback_on_writable(wsi)
            return
        }
        switch sendNextBatch(to: wsi, id: id, restTo: .libwebsockets) {
        case .nothing, .sent:
            break
        case .close:
            // Closing needs the writable callback (its return value is how lws is told to close).
            lws_callback_on_writable(wsi)
        case .failed:
            // The peer reset the socket: lws closes it at its next turn.
            herald_drop(wsi)
        }
    }

    /// When a connection the hub wants written to is written to.
    enum WriteTiming {
        /// At once, from the callback that is running (`writeNow`): only a delivery's (`drainInbox`).
        case now
        /// In its writable callback, after the next `poll()`.
        case afterPoll
    }

    /// Performs the actions the hub calls returned, in order, and those the performing returned
    /// (a write made `.now` is a hub call). Writing `.now` is `drainInbox`'s, which notes the
    /// backlog after.
    func performActions(writing timing: WriteTiming = .afterPoll) {
        guard !actions.isEmpty else { return }
        repeat { performPendingActions(writing: timing) } while !actions.isEmpty
    }

    private func performPendingActions(writing timing: WriteTiming) {
        let pending = actions
        actions.removeAll(keepingCapacity: true)
        for action in pending {
            switch action {
            case .wantWritable(let id):
                guard let wsi = sockets[id] else { break }
                if timing == .now { writeNow(to: wsi, id: id) } else { lws_callback_on_writable(wsi) }
            case .wantWritableAll where timing == .afterPoll:
                // Every socket bound to the one protocol: WebSockets, and HTTP exchanges, whose
                // writable callback writes only what their response has left.
                if let context, let streamProtocol { lws_callback_on_writable_all_protocol(context, streamProtocol) }
            case .wantWritableAll:
                for case let entry? in streamSockets.entries { writeNow(to: entry.wsi, id: entry.id) }
            case .drop(let id):
                if let wsi = sockets[id] { herald_drop(wsi) }
            case .ask(let request, let ticket):
                engine.send(request) { [route] reply in route.post(.answer(ticket, reply)) }
            case .respond(let id, let response):
                respond(id, response)
            case .readFile(let id, let path, let allowOrigin):
                DispatchQueue.global(qos: .userInitiated).async { [files, route] in
                    var response = files.response(for: path)
                    if let allowOrigin { response.headers += [("access-control-allow-origin:", allowOrigin), ("vary:", "Origin")] }
                    route.post(.file(id, response))
                }
            case .compute(let id, let work):
                // One at a time: a sign-in's argon2id takes tens of milliseconds and 64 MiB, so a flood
                // of them queues here instead of taking every core and gigabytes.
                signInQueue.async { [route] in route.post(.file(id, work())) }
            case .answerLater(let id, let work):
                // Not the sign-in queue: the work waits for nothing, and a sign-in must not wait for it.
                DispatchQueue.global(qos: .userInitiated).async { [route] in work { response in route.post(.file(id, response)) } }
            case .attachWorker(let id, let hello):
                engine.attachWorker(WorkerSession(id), hello) { [route] directive in route.post(.worker(id, directive)) }
            case .workerReport(let id, let report):
                engine.workerSent(WorkerSession(id), report)
            case .detachWorker(let id):
                engine.detachWorker(WorkerSession(id))
            }
        }
    }
}
