import HeraldEngine

/// Fan-out: deliveries from the inbox into connections' outboxes, and the slow-client policy.
/// Thread: the service thread.
extension StreamHub {
    /// Frame appends (events × stream connections) one turn of the service loop does at most, so a
    /// turn stays short however many clients there are and HTTP is never starved.
    static let fanOutPerTurn = 32_000
    /// Encoded event bytes taken from the inbox per turn.
    static let sliceBytes = 1 << 20

    /// Outbox bytes above which a connection counts as backlogged for producer pacing
    /// (`DeliveryInbox.deliveryIsBehind`): a quarter of the slow-client cap.
    public var backlogThreshold: Int { configuration.outboxCapBytes / 4 }

    /// Connections holding more than `backlogThreshold` bytes, and all connections. O(connections):
    /// counted once per turn, beside fan-out that already touches each one.
    public var backlogCount: (backlogged: Int, total: Int) {
        let threshold = backlogThreshold
        return (connections.values.reduce(0) { $0 + ($1.outbox.pendingBytes > threshold ? 1 : 0) }, connections.count)
    }

    /// How many ordered deliveries to take from the inbox this turn.
    public var sliceEntries: Int { max(16, Self.fanOutPerTurn / max(1, connections.count)) }
    public var sliceBytes: Int { Self.sliceBytes }

    /// Applies one drained slice. `isChoked` tells whether a connection's socket cannot take more
    /// right now (the transport asks the kernel); it is asked only of connections over their cap, so a
    /// burst bigger than the cap that the client is reading away is not mistaken for a slow client.
    public mutating func deliver(
        _ drained: DeliveryInbox.Drained, now: Double, isChoked: (ConnectionID) -> Bool, into actions: inout [HubAction]
    ) {
        uptime = now
        if drained.stopRequested { beginClosing(into: &actions) }
        if drained.overflowed { resyncEveryone(into: &actions) }
        for delivery in drained.replies { apply(delivery, into: &actions) }
        var touched: [ConnectionID: Bool] = [:]
        for delivery in drained.ordered {
            guard case .event(let event) = delivery else {
                apply(delivery, into: &actions)
                continue
            }
            if case .job(let job) = event.event {
                logger.info("job \(job.id) \(job.kind.rawValue) \(job.state.rawValue)\(job.error.map { ": \($0)" } ?? "")")
            }
            let frame = OutboundFrame.event(event)
            for (id, connection) in connections {
                guard case .live(let covered) = connection.stream, event.seq > covered, connection.pendingClose == nil else { continue }
                if touched[id] == nil { touched[id] = connection.outbox.isEmpty }
                connection.outbox.append(frame)
            }
        }
        for (id, wasEmpty) in touched {
            guard let connection = connections[id] else { continue }
            guard connection.outbox.isOverCap, isChoked(id) else {
                if wasEmpty { actions.append(.wantWritable(id)) }
                continue
            }
            relieve(connection, now: now, into: &actions)
            actions.append(.wantWritable(id))
        }
    }

    /// A slow client's outbox is over its cap: collapse progress, else resync, else close 4008.
    mutating func relieve(_ connection: HubConnection, now: Double, into actions: inout [HubAction]) {
        let collapsedBefore = connection.outbox.collapsed
        let pressure = connection.outbox.relieve(now: now)
        metrics.progressCollapsed += connection.outbox.collapsed - collapsedBefore
        switch pressure {
        case .fine:
            break
        case .resync:
            metrics.resyncs += 1
            logger.info("connection \(connection.id) fell behind; its backlog is replaced by a snapshot")
            awaitSnapshot(connection, reason: .resync, into: &actions)
        case .close:
            metrics.slowClientCloses += 1
            connection.outbox.discardEvents()
            connection.stream = .none
            connection.pendingClose = (
                4008, "too slow: resynced \(configuration.resyncLimit) times in \(Int(configuration.resyncWindowSeconds)) s"
            )
        }
    }

    /// The inbox dropped events (this thread fell too far behind): every client waits for one fresh
    /// snapshot, asked for now, so nobody misses an outcome.
    mutating func resyncEveryone(into actions: inout [HubAction]) {
        overflowGeneration += 1
        let streams = connections.values.filter { $0.stream != .none && $0.pendingClose == nil }
        logger.warning("the event inbox overflowed; resyncing \(streams.count) connection(s)")
        for connection in streams {
            metrics.resyncs += 1
            connection.outbox.discardEvents()
            connection.stream = .awaitingSnapshot(reason: .resync, generation: overflowGeneration)
        }
        requestSnapshotIfNeeded(into: &actions)
    }

    /// Applies an answer or a file.
    mutating func apply(_ delivery: Delivery, into actions: inout [HubAction]) {
        switch delivery {
        case .event:
            preconditionFailure("events are fanned out by deliver")
        case .file(let id, let response):
            guard pendingHTTP.remove(id) != nil else { return }
            respond(id, response, into: &actions)
        case .answer(let ticket, let reply):
            answer(ticket, engineReply: reply, into: &actions)
        case .worker(let id, let directive):
            direct(id, directive, into: &actions)
        }
    }

    mutating func answer(_ ticket: HubTicket, engineReply: EngineReply, into actions: inout [HubAction]) {
        switch (ticket, engineReply) {
        case (.snapshot(let generation), .snapshot(let snapshot)):
            shareSnapshot(snapshot, generation: generation, into: &actions)
        case (.resume(let id, let since), .resume(let answer)):
            guard let connection = connections[id], connection.stream == .awaitingResume else { return }
            switch answer {
            case .events(let events):
                for event in events { connection.outbox.append(.replayed(event)) }
                connection.stream = .live(coveredThrough: events.last?.seq ?? since)
                connection.releaseHeldReplies()
            case .snapshot(let snapshot):
                appendSnapshot(encode(snapshot, reason: .resume), seq: snapshot.seq, to: connection)
            }
            actions.append(.wantWritable(id))
        case (.command(let id, let type, let requestId), .job(let result)):
            let outcome: String
            switch result {
            case .success(let job):
                outcome = "ok"
                if let connection = connections[id] {
                    reply(connection, WireEncoder.accepted(requestId: requestId, job: job), into: &actions)
                }
            case .failure(let error):
                outcome = error.code.rawValue
                if let connection = connections[id] { reply(connection, WireEncoder.error(error, requestId: requestId), into: &actions) }
            }
            metrics.countCommand(type, outcome: outcome)
        case (.page(let id, let job, let requestId), .page(let result)):
            switch result {
            case .success(let page):
                metrics.countCommand("page", outcome: "ok")
                if let connection = connections[id] {
                    reply(connection, WireEncoder.page(page, job: JobID(job), requestId: requestId), into: &actions)
                }
            case .failure(let error):
                metrics.countCommand("page", outcome: error.code.rawValue)
                if let connection = connections[id] { reply(connection, WireEncoder.error(error, requestId: requestId), into: &actions) }
            }
        case (.http(let id, let query), _):
            guard pendingHTTP.remove(id) != nil else { return }
            respond(
                id, api.render(query, engineReply, status: HTTPAPI.Status(metrics: metrics, uptimeSeconds: uptime, epoch: epoch)),
                into: &actions)
        default:
            logger.error("the engine answered \(ticket) with an unexpected reply; dropped")
        }
    }

    /// Gives one snapshot to every connection waiting for one it covers: encoded once per reason.
    mutating func shareSnapshot(_ snapshot: Snapshot, generation: Int, into actions: inout [HubAction]) {
        if snapshotInFlight == generation { snapshotInFlight = nil }
        var encoded: [WireEncoder.SnapshotReason: [UInt8]] = [:]
        var unserved = false
        for (id, connection) in connections {
            guard case .awaitingSnapshot(let reason, let needed) = connection.stream else { continue }
            guard generation >= needed else {
                unserved = true
                continue
            }
            let frame = encoded[reason] ?? encode(snapshot, reason: reason)
            encoded[reason] = frame
            appendSnapshot(frame, seq: snapshot.seq, to: connection)
            actions.append(.wantWritable(id))
        }
        if unserved { requestSnapshotIfNeeded(into: &actions) }
    }

    /// Every snapshot (connect, resume, resync) says what the hub adds to the engine's limits: the largest
    /// message it reads, and whether start and cancel need a token (so a page can offer to sign in first).
    func encode(_ snapshot: Snapshot, reason: WireEncoder.SnapshotReason) -> [UInt8] {
        let limits: JSONObject = [
            "maxMessageBytes": .int(Int64(configuration.maxMessageBytes)), "authRequired": .bool(authorizer.isRequired),
        ]
        return WebSocketFrame.text(WireEncoder.encode(snapshot: snapshot, reason: reason, extraLimits: limits))
    }

    func appendSnapshot(_ frame: [UInt8], seq: Int64, to connection: HubConnection) {
        connection.outbox.append(OutboundFrame(kind: .snapshot(seq: seq), bytes: frame))
        connection.stream = .live(coveredThrough: seq)
        connection.releaseHeldReplies()
    }
}
