import HeraldAccess
import HeraldEngine

/// Inbound WebSocket messages and the commands they carry. Thread: the service thread.
extension StreamHub {
    /// One received fragment. `isFinal` is true when it completes a message.
    public mutating func received(
        _ id: ConnectionID, _ bytes: UnsafeRawBufferPointer, isBinary: Bool, isFinal: Bool, now: Double, into actions: inout [HubAction]
    ) {
        guard let connection = connections[id] else { return }
        connection.lastHeard = now
        connection.pingAskedAt = nil
        // Closing (1009 below): what is still arriving is read and dropped, so the transport stays in
        // step with the frames and the close frame goes out at the next writable callback. A worker
        // whose lease ran out is still told that each run it reports on is no longer its own.
        if let closing = connection.pendingClose {
            if closing.code == Self.leaseExpiredCloseCode, isFinal, connection.inbound.isEmpty, !isBinary {
                refuseReportAfterLeaseExpired(Array(bytes), from: connection, into: &actions)
            }
            return
        }
        if connection.inbound.isEmpty { connection.inboundIsBinary = isBinary }
        let limit = connection.isEcho ? configuration.echoMaxMessageBytes : configuration.maxMessageBytes
        guard connection.inbound.count + bytes.count <= limit else {
            connection.inbound = []
            connection.outbox.removeAll()
            connection.stream = .none
            connection.pendingClose = (1009, "message over \(limit) bytes")
            actions.append(.wantWritable(id))
            return
        }
        connection.inbound.append(contentsOf: bytes)
        guard isFinal else { return }
        let message = connection.inbound
        connection.inbound.removeAll(keepingCapacity: connection.inbound.capacity <= 4096)
        if connection.isEcho {
            let opcode = connection.inboundIsBinary ? WebSocketFrame.binaryOpcode : WebSocketFrame.textOpcode
            let wasEmpty = connection.outbox.isEmpty
            connection.outbox.append(OutboundFrame(kind: .reply, bytes: WebSocketFrame.frame(opcode: opcode, message)))
            if wasEmpty { actions.append(.wantWritable(id)) }
            return
        }
        if connection.inboundIsBinary {
            reply(
                connection, WireEncoder.error(EngineError(.badRequest, "commands are JSON text frames, not binary"), requestId: nil),
                into: &actions)
            return
        }
        handleMessage(message, from: connection, now: now, into: &actions)
    }

    mutating func handleMessage(_ message: [UInt8], from connection: HubConnection, now: Double, into actions: inout [HubAction]) {
        // An attached worker reports as often as its jobs print; the rate limit is for viewers.
        guard connection.isWorker || connection.commandBucket.take(now: now) else {
            metrics.countCommand("any", outcome: ErrorCode.rateLimited.rawValue)
            // Each refusal is answered while this client's backlog is small; once its replies pile up
            // (half the outbox cap, or 100 held before the first snapshot) further refusals are dropped,
            // so a flood cannot grow memory.
            if connection.outbox.pendingBytes < configuration.outboxCapBytes / 2, (connection.heldReplies?.count ?? 0) < 100 {
                let error = EngineError(.rateLimited, "too many commands; at most \(Int(configuration.commandsPerSecond)) per second")
                reply(connection, WireEncoder.error(error, requestId: nil), into: &actions)
            }
            return
        }
        switch CommandDecoder.decode(message) {
        case .failure(let refusal):
            metrics.countCommand("invalid", outcome: refusal.error.code.rawValue)
            reply(connection, WireEncoder.error(refusal.error, requestId: refusal.requestId), into: &actions)
        case .success(let command):
            execute(command, from: connection, into: &actions)
        }
    }

    /// Runs one command: answered now (ping, auth, refusals) or sent to the engine, whose answer
    /// becomes the reply (`answer(_:_:into:)`). Each is checked against the connection's principal
    /// first: a refusal changes nothing.
    private mutating func execute(_ command: Command, from connection: HubConnection, into actions: inout [HubAction]) {
        func refuse(_ error: EngineError, _ requestId: String?) {
            auditRefused(error, principal: connection.principal, peer: connection.peer)
            metrics.countCommand(command.typeName, outcome: error.code.rawValue)
            reply(connection, WireEncoder.error(error, requestId: requestId), into: &actions)
        }
        let principal = connection.principal
        switch command {
        case .start(var request):
            if let refusal = principal.refusal(of: .start(kind: request.kind)) { return refuse(EngineError(refusal), request.requestId) }
            request.startedBy = principal.name
            actions.append(.ask(.start(request), .command(connection.id, type: command.typeName, requestId: request.requestId)))
        case .cancel(let job, let requestId):
            if let refusal = principal.refusal(of: .cancelOwn) { return refuse(EngineError(refusal), requestId) }
            if let error = refusal(of: job, to: principal) { return refuse(error, requestId) }
            actions.append(.ask(.cancel(job, by: principal), .command(connection.id, type: command.typeName, requestId: requestId)))
        case .resume(let epoch, let since):
            metrics.countCommand(command.typeName, outcome: "ok")
            resume(connection, epoch: epoch, since: since, into: &actions)
        case .page(let job, let offset, let limit, let requestId):
            if let error = refusal(of: job, to: principal) { return refuse(error, requestId) }
            actions.append(.ask(.page(job: job, offset: offset, limit: limit), .page(connection.id, job: job, requestId: requestId)))
        case .schedules(let requestId):
            if let refusal = principal.refusalOutsideScope(of: "see schedules") { return refuse(EngineError(refusal), requestId) }
            actions.append(.ask(.schedules, .command(connection.id, type: command.typeName, requestId: requestId)))
        case .schedule(let name, let action, let requestId):
            if let refusal = principal.refusal(of: .controlSchedule) ?? principal.refusalOutsideScope(of: "control schedules") {
                return refuse(EngineError(refusal), requestId)
            }
            actions.append(
                .ask(.controlSchedule(name: name, action), .command(connection.id, type: command.typeName, requestId: requestId)))
        case .ping:
            metrics.countCommand(command.typeName, outcome: "ok")
            reply(connection, WireEncoder.pong, into: &actions)
        case .auth(let token, let requestId):
            authenticate(connection, token: token, requestId: requestId, into: &actions)
        case .hello(let greeting):
            workerHello(greeting, from: connection, into: &actions)
        case .worker(let report):
            workerReport(report, from: connection, into: &actions)
        }
    }

    /// `auth`: the token replaces the connection's principal (a worker's, a key's, a JWT's …). A
    /// connection whose scope changes gets a fresh snapshot of what it may now see.
    private mutating func authenticate(_ connection: HubConnection, token: String, requestId: String?, into actions: inout [HubAction]) {
        switch access.authenticate(PresentedCredentials(bearer: token, peerAddress: connection.peer)) {
        case .failure(let refusal):
            metrics.countCommand("auth", outcome: ErrorCode.unauthorized.rawValue)
            reply(connection, WireEncoder.error(EngineError(refusal), requestId: requestId), into: &actions)
        case .success(let principal):
            metrics.countCommand("auth", outcome: "ok")
            let scopeChanged = principal.scope != connection.principal.scope
            connection.principal = principal
            var object: JSONObject = ["type": "accepted"]
            if principal.role == .worker { object["role"] = "worker" }
            if let requestId { object["requestId"] = .string(requestId) }
            reply(connection, JSONWriter.encode(.object(object)), into: &actions)
            if scopeChanged, connection.stream != .none, !connection.isWorker, !connection.isWorkerHelloPending {
                metrics.resyncs += 1
                awaitSnapshot(connection, reason: .resync, into: &actions)
            }
        }
    }
}
