import HeraldAccess
import HeraldEngine

/// Fan-out: deliveries from the inbox into the shared ring, and the slow-client policy.
/// Thread: the service thread.
extension StreamHub {
    /// Deliveries (events × stream connections) one turn of the service loop makes at most. An event
    /// is copied into the ring once, but each connection then writes it: bounding a turn's events by
    /// the connections keeps the writes that follow (one pass of writable callbacks) short, so HTTP
    /// is answered between passes even when every client is busy.
    static let fanOutPerTurn = 32_000
    /// Encoded event bytes taken from the inbox per turn at most.
    static let sliceByteLimit = 1 << 20

    /// Bytes behind the newest event above which a connection counts as backlogged for producer
    /// pacing (`DeliveryInbox.deliveryIsBehind`): a quarter of the ring.
    public var backlogThreshold: Int { ringCapacityBytes / 4 }

    /// Connections more than `backlogThreshold` bytes behind, and all connections. O(1): counted
    /// again after every delivery (`recountBacklog`, beside fan-out that already touches each
    /// connection), and kept exact in between as connections write (`writable`) and close.
    public var backlogCount: (backlogged: Int, total: Int) { (backloggedConnections, connections.count) }

    func isBacklogged(_ connection: HubConnection) -> Bool {
        let behind = connection.outbox.pendingBytes + (connection.cursor.map { ringBacklogBytes(from: $0) } ?? 0)
        return behind > backlogThreshold
    }

    /// Counts the backlogged connections. O(connections), once per delivery (in `deliver`'s pass when
    /// it appended events): deliveries are what make backlogs grow (a reply between them is counted at
    /// the next one); writes only shrink them.
    mutating func recountBacklog() {
        var count = 0
        for connection in connections.values {
            connection.countedAsBacklogged = isBacklogged(connection)
            if connection.countedAsBacklogged { count += 1 }
        }
        backloggedConnections = count
    }

    /// A connection wrote (or was resynced): it leaves the count once it is no longer behind.
    mutating func recountBacklog(of connection: HubConnection) {
        guard connection.countedAsBacklogged, !isBacklogged(connection) else { return }
        connection.countedAsBacklogged = false
        backloggedConnections -= 1
    }

    /// How many ordered deliveries to take from the inbox this turn.
    public var sliceEntries: Int { max(16, Self.fanOutPerTurn / max(1, connections.count)) }
    /// At most a quarter of the ring, so one turn's events never push a connection that was keeping
    /// up off the ring before it had a chance to write.
    public var sliceBytes: Int { min(Self.sliceByteLimit, ringCapacityBytes / 4) }

    /// Applies one drained slice: events go into the ring once (no per-connection copy); every live
    /// connection that had nothing left to write is asked to write; a connection the ring dropped
    /// events from under (its cursor fell off the tail) is a slow client and is resynced.
    public mutating func deliver(_ drained: DeliveryInbox.Drained, now: Double, into actions: inout [HubAction]) {
        precondition(sharing == nil, "a hub of several service threads takes ThreadInbox.Drained")
        uptime = now
        if drained.stopRequested { beginClosing(into: &actions) }
        if drained.streamReset {
            // Seqs start again in a new epoch: nothing in the ring can be resumed from any more.
            ring.discardAll()
            logger.warning("the engine's stream restarted (a new epoch); every viewer gets a snapshot")
        }
        if drained.overflowed || drained.streamReset { resyncEveryone(into: &actions) }
        for delivery in drained.replies { apply(delivery, into: &actions) }
        let endBefore = ring.endIndex
        var appended = false
        for delivery in drained.ordered {
            guard case .event(let event) = delivery else {
                apply(delivery, into: &actions)
                continue
            }
            if case .job(let job) = event.event {
                logger.info("job \(job.id) \(job.kind.rawValue) \(job.state.rawValue)\(job.error.map { ": \($0)" } ?? "")")
                jobKinds.learn(job)
            }
            ring.append(WebSocketFrame.text(event.json), seq: event.seq, ts: event.ts, job: event.job)
            appended = true
        }
        guard appended else {
            recountBacklog()
            return
        }
        askWriters(endBefore: endBefore, now: now, into: &actions)
    }

    /// After events were appended from `endBefore` on: asks every connection that must write for a
    /// writable callback, and counts the backlogged.
    mutating func askWriters(endBefore: Int64, now: Double, into actions: inout [HubAction]) {
        // One pass over the connections does the fan-out and the backlog count together: at 5,000
        // connections each visit is a cache miss or two (s8's profile), so a second pass costs as much.
        var backlogged = 0
        wanting.removeAll(keepingCapacity: true)
        for (id, connection) in connections {
            if needsWritable(connection, endBefore: endBefore, now: now, into: &actions) { wanting.append(id) }
            connection.countedAsBacklogged = isBacklogged(connection)
            if connection.countedAsBacklogged { backlogged += 1 }
        }
        backloggedConnections = backlogged
        if wanting.count > 1, wanting.count >= connections.count - connections.count / Self.wantAllSlack {
            actions.append(.wantWritableAll)
        } else {
            for id in wanting { actions.append(.wantWritable(id)) }
        }
    }

    /// A delivery that finds all connections but one in this many waiting to be asked asks them all
    /// at once (`HubAction.wantWritableAll`): one request instead of thousands, and the few already
    /// asked (or with nothing to write) only get a callback they answer `.idle`.
    static let wantAllSlack = 8

    /// Whether the connection must be asked for a writable callback after events were appended from
    /// `endBefore` on: it had written everything (nobody asked for one yet), or it fell off the ring
    /// (it is resynced or closed now, and writes that).
    mutating func needsWritable(_ connection: HubConnection, endBefore: Int64, now: Double, into actions: inout [HubAction]) -> Bool {
        if case .behind(let mark) = connection.stream, mark < ringFirstIndex {
            // Still unable to write while a whole ring went by: resynced again, or closed.
            fellBehind(connection, now: now, into: &actions)
            return true
        }
        guard let cursor = connection.cursor else { return false }
        if cursor < ringFirstIndex {
            fellBehind(connection, now: now, into: &actions)
            return true
        }
        return cursor >= endBefore && connection.outbox.isEmpty && connection.pendingClose == nil
    }

    /// A slow client (the ring dropped events it had not been sent): its backlog is dropped and it
    /// gets a snapshot once it can write again (`StreamPosition.behind`), or is closed with 4008 after
    /// `resyncLimit` resyncs within the window. The caller asks for its writable callback.
    mutating func fellBehind(_ connection: HubConnection, now: Double, into actions: inout [HubAction]) {
        switch connection.outbox.noteResync(now: now) {
        case .resync:
            metrics.resyncs += 1
            logger.info("connection \(connection.id) fell behind; its backlog is replaced by a snapshot once it can write")
            connection.outbox.discardEvents()
            connection.stream = .behind(mark: ringEndIndex)
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
        // A connection `.behind` asks for its snapshot when it can write, after this overflow: it is
        // covered, and was counted as resynced when it fell behind.
        let streams = connections.values.filter {
            $0.stream != .none && $0.pendingClose == nil && !$0.isBehind
        }
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
                let scope = connection.scope
                for event in events where scope == nil || event.job.map({ admits($0, in: scope!) }) == true {
                    connection.outbox.append(.replayed(event))
                }
                goLive(connection, after: events.last?.seq ?? since)
                connection.releaseHeldReplies()
            case .snapshot(let snapshot):
                learnKinds(from: snapshot)
                appendSnapshot(encode(snapshot, reason: .resume, scope: connection.scope), seq: snapshot.seq, to: connection)
            }
            actions.append(.wantWritable(id))
        case (.command(let id, let type, let requestId), .job(let result)):
            if let connection = connections[id] {
                switch result {
                case .success(let record): auditTaken(type, record, by: connection.principal, peer: connection.peer)
                case .failure(let error): auditRefused(error, principal: connection.principal, peer: connection.peer)
                }
            }
            answerCommand(id, type: type, requestId: requestId, result, into: &actions) {
                WireEncoder.accepted(requestId: requestId, job: $0)
            }
        case (.command(let id, let type, let requestId), .schedules(let schedules)):
            answerCommand(id, type: type, requestId: requestId, .success(schedules), into: &actions) {
                WireEncoder.schedules($0, requestId: requestId)
            }
        case (.command(let id, let type, let requestId), .schedule(let result)):
            answerCommand(id, type: type, requestId: requestId, result, into: &actions) { WireEncoder.schedule($0, requestId: requestId) }
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
        case (.health, .statistics(let statistics)):
            healthAnswered(statistics, into: &actions)
        case (.http(let id, let query), _):
            guard pendingHTTP.remove(id) != nil else { return }
            if let principal = query.principal, case .job(let result) = engineReply {
                let type = query.route == "POST /api/jobs" ? "start" : query.route == "POST /api/jobs/{id}/cancel" ? "cancel" : ""
                switch result {
                case .success(let record): auditTaken(type, record, by: principal, peer: nil)
                case .failure(let error): auditRefused(error, principal: principal, peer: nil)
                }
            }
            respond(
                id, api.render(query, engineReply, status: HTTPAPI.Status(metrics: serverMetrics, uptimeSeconds: uptime, epoch: epoch)),
                into: &actions)
        default:
            logger.error("the engine answered \(ticket) with an unexpected reply; dropped")
        }
    }

    /// Counts a command's answer by outcome and replies with it (`encode`d) or its refusal, when the
    /// connection is still there.
    private mutating func answerCommand<Value>(
        _ id: ConnectionID, type: String, requestId: String?, _ result: Result<Value, EngineError>, into actions: inout [HubAction],
        encode: (Value) -> [UInt8]
    ) {
        switch result {
        case .success(let value):
            metrics.countCommand(type, outcome: "ok")
            if let connection = connections[id] { reply(connection, encode(value), into: &actions) }
        case .failure(let error):
            metrics.countCommand(type, outcome: error.code.rawValue)
            if let connection = connections[id] { reply(connection, WireEncoder.error(error, requestId: requestId), into: &actions) }
        }
    }

    /// Gives one snapshot to every connection waiting for one it covers: encoded once per reason.
    mutating func shareSnapshot(_ snapshot: Snapshot, generation: Int, into actions: inout [HubAction]) {
        if snapshotInFlight == generation { snapshotInFlight = nil }
        learnKinds(from: snapshot)
        var encoded: [WireEncoder.SnapshotReason: [UInt8]] = [:]
        var encodedScoped: [ScopedSnapshotKey: [UInt8]] = [:]
        var unserved = false
        for (id, connection) in connections {
            guard case .awaitingSnapshot(let reason, let needed) = connection.stream else { continue }
            guard generation >= needed else {
                unserved = true
                continue
            }
            let frame: [UInt8]
            if let scope = connection.scope {
                let key = ScopedSnapshotKey(reason: reason, scope: scope)
                frame = encodedScoped[key] ?? encode(snapshot, reason: reason, scope: scope)
                encodedScoped[key] = frame
            } else {
                frame = encoded[reason] ?? encode(snapshot, reason: reason)
                encoded[reason] = frame
            }
            appendSnapshot(frame, seq: snapshot.seq, to: connection)
            actions.append(.wantWritable(id))
        }
        if unserved { requestSnapshotIfNeeded(into: &actions) }
    }

    /// Every snapshot (connect, resume, resync) says what the hub adds to the engine's limits: the largest
    /// message it reads, and whether start and cancel need a token (so a page can offer to sign in first).
    /// A scoped connection's snapshot (`scope`) holds only its jobs and says its scope.
    func encode(_ snapshot: Snapshot, reason: WireEncoder.SnapshotReason, scope: AccessScope? = nil) -> [UInt8] {
        let anonymousMayStart = (try? access.anonymous().get())?.refusal(of: .start(kind: "")) == nil
        let limits: JSONObject = [
            "maxMessageBytes": .int(Int64(configuration.maxMessageBytes)), "authRequired": .bool(!anonymousMayStart),
        ]
        guard let scope else { return WebSocketFrame.text(WireEncoder.encode(snapshot: snapshot, reason: reason, extraLimits: limits)) }
        return WebSocketFrame.text(
            WireEncoder.encode(snapshot: scoped(snapshot, to: scope), reason: reason, extraLimits: limits, scope: Self.scopeObject(scope)))
    }

    /// Snapshots for scoped connections are encoded once per reason and scope.
    struct ScopedSnapshotKey: Hashable {
        var reason: WireEncoder.SnapshotReason
        var scope: AccessScope
    }

    func appendSnapshot(_ frame: [UInt8], seq: Int64, to connection: HubConnection) {
        connection.outbox.append(OutboundFrame(kind: .snapshot(seq: seq), bytes: frame))
        followSnapshotWithHealth(connection)
        goLive(connection, after: seq)
        connection.releaseHeldReplies()
    }

    /// The connection has everything up to `seq`: it reads the ring from the next event on. The ring
    /// always holds what follows a fresh snapshot or resume (they travel in step with the events); a
    /// connection whose `seq` is older than the ring's tail would skip events, and is resynced instead.
    func goLive(_ connection: HubConnection, after seq: Int64) {
        connection.stream = .live(coveredThrough: seq)
        if let stamp = readStamp {
            // Several service threads: the ring's end when the answer was posted is where it ends.
            connection.cursor = stamp >= ringFirstIndex ? stamp : ringFirstIndex - 1
        } else {
            connection.cursor = ringIndex(after: seq) ?? (ringFirstIndex - 1)
        }
    }
}
