import CLibWebSockets
import HeraldEngine

/// Fan-out: events from the inbox into every connection's outbox, and outboxes onto sockets.
/// Thread: the service thread.
extension WebSocketServer {
    /// Frames queued events once and appends the same bytes to every connection's outbox, then
    /// applies the slow-client policy to connections that are over their cap and whose socket is
    /// full. Takes at most `inboxSliceBytes` per turn of the service loop and wakes itself for the
    /// rest, so one huge burst does not hold up writes.
    func drainInbox() {
        let (events, more, stopRequested, overflowed) = inbox.drain(maxBytes: Self.inboxSliceBytes)
        if stopRequested, !isClosing { beginClosing() }
        if more { inbox.wake() }
        if overflowed { resyncEveryone() }
        guard !events.isEmpty else { return }
        var touched: [OpaquePointer: Bool] = [:]
        for event in events {
            if case .job(let job) = event.event {
                logger.info("job \(job.id) \(job.kind.rawValue) \(job.state.rawValue)\(job.error.map { ": \($0)" } ?? "")")
            }
            let frame = OutboundFrame.event(event)
            for (wsi, connection) in connections where event.seq > connection.coveredThrough && connection.pendingClose == nil {
                if touched[wsi] == nil { touched[wsi] = connection.outbox.isEmpty }
                connection.outbox.append(frame)
            }
        }
        let now = uptime()
        for (wsi, wasEmpty) in touched {
            guard let connection = connections[wsi] else { continue }
            // lws_send_pipe_choked costs a poll(): ask only for connections over their cap.
            guard connection.outbox.isOverCap, lws_send_pipe_choked(wsi) != 0 else {
                if wasEmpty { lws_callback_on_writable(wsi) }
                continue
            }
            let collapsedBefore = connection.outbox.collapsed
            let pressure = connection.outbox.relieve(now: now)
            metrics.progressCollapsed += connection.outbox.collapsed - collapsedBefore
            switch pressure {
            case .fine:
                break
            case .resync:
                metrics.resyncs += 1
                logger.info("connection \(connection.id) fell behind; its backlog was replaced by a snapshot")
                sendSnapshot(to: connection, reason: .resync)
            case .close:
                metrics.slowClientCloses += 1
                connection.outbox.discardEvents()
                connection.pendingClose = (4008, "too slow: resynced \(configuration.resyncLimit) times in \(Int(configuration.resyncWindowSeconds)) s")
            }
            lws_callback_on_writable(wsi)
        }
    }

    /// The inbox dropped events (this thread fell too far behind): every client gets a snapshot, so
    /// nobody misses an outcome; events after the snapshot follow as usual.
    func resyncEveryone() {
        logger.warning("the event inbox overflowed; resyncing \(connections.count) connection(s)")
        for (wsi, connection) in connections where !connection.isEcho && connection.pendingClose == nil {
            connection.outbox.discardEvents()
            metrics.resyncs += 1
            sendSnapshot(to: connection, reason: .resync)
            lws_callback_on_writable(wsi)
        }
    }

    /// Encoded event bytes taken from the inbox per turn of the service loop.
    static let inboxSliceBytes = 1 << 20

    func sendSnapshot(to connection: Connection, reason: WireEncoder.SnapshotReason) {
        let snapshot = engine.snapshot()
        connection.coveredThrough = snapshot.seq
        let limits: JSONObject = ["maxMessageBytes": .int(Int64(configuration.maxMessageBytes))]
        let bytes = WireEncoder.encode(snapshot: snapshot, reason: reason, extraLimits: limits)
        connection.outbox.append(OutboundFrame(kind: .snapshot(seq: snapshot.seq), bytes: WebSocketFrame.text(bytes)))
    }

    /// Points the connection's stream at `since`: the missed events from the log, or a snapshot.
    func resume(_ connection: Connection, epoch: String, since: Int64) {
        connection.outbox.discardEvents()
        switch engine.resume(epoch: epoch, since: since) {
        case .events(let events):
            for event in events {
                connection.outbox.append(.event(event))
            }
            connection.coveredThrough = events.last?.seq ?? since
        case .snapshot:
            sendSnapshot(to: connection, reason: .resume)
        }
    }

    func reply(_ connection: Connection, _ payload: [UInt8], on wsi: OpaquePointer) {
        connection.outbox.append(OutboundFrame(kind: .reply, bytes: WebSocketFrame.text(payload)))
        lws_callback_on_writable(wsi)
    }

    /// Writes as many whole frames as fit one batch with one system call (a raw write of frames
    /// framed in advance), then asks for another callback if more is waiting.
    func writeFrames(to wsi: OpaquePointer) -> CallbackAction {
        guard let connection = connections[wsi] else { return .proceed }
        if connection.outbox.isEmpty, let (code, reason) = connection.pendingClose {
            var text = Array(reason.utf8.prefix(120))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &text, text.count)
            return .close
        }
        guard !connection.outbox.isEmpty else { return .proceed }
        let frames = connection.outbox.count
        connection.outbox.takeBatch(limit: configuration.writeBatchBytes, into: &batchBuffer)
        let sent = frames - connection.outbox.count
        let written = batchBuffer.withUnsafeMutableBufferPointer { buffer in
            // LWS_WRITE_HTTP is lws's raw write: on a WebSocket it sends our pre-framed bytes as they
            // are, and queues any unsent tail itself before the next writable callback.
            lws_write(wsi, buffer.baseAddress, buffer.count, LWS_WRITE_HTTP)
        }
        guard written >= 0 else { return .close }
        metrics.framesSent += sent
        metrics.bytesSent += batchBuffer.count
        if !connection.outbox.isEmpty || connection.pendingClose != nil { lws_callback_on_writable(wsi) }
        return .proceed
    }

    /// Starts a graceful stop: no new connections, every client closed with 1001.
    func beginClosing() {
        isClosing = true
        logger.info("shutting down: closing \(connections.count) connection(s)")
        for (wsi, connection) in connections {
            connection.outbox.discardEvents()
            connection.pendingClose = (1001, "server shutting down")
            lws_callback_on_writable(wsi)
        }
    }
}
