import HeraldAccess
import HeraldEngine

/// Worker connections (docs/workers.md): `hello` checked here (token or loopback), then handed to the
/// engine; reports passed on; the engine's directives turned into messages or a close.
/// Thread: the service thread.
extension StreamHub {
    /// Close code for a worker whose lease ran out.
    static let leaseExpiredCloseCode: UInt16 = 4009

    mutating func workerHello(_ hello: WorkerHello, from connection: HubConnection, into actions: inout [HubAction]) {
        func refuse(_ error: EngineError) {
            metrics.countCommand("hello", outcome: error.code.rawValue)
            reply(connection, WireEncoder.error(error, requestId: nil), into: &actions)
        }
        guard !connection.isWorker, !connection.isWorkerHelloPending else {
            return refuse(EngineError(.badRequest, "this connection already said hello"))
        }
        var worker = connection.principal
        if let token = hello.token,
            case .success(let presented) = access.authenticate(PresentedCredentials(bearer: token, peerAddress: connection.peer))
        {
            worker = presented
        }
        if worker.source != .anonymous {
            if let refusal = worker.refusal(of: .work) { return refuse(EngineError(refusal)) }
        } else if access.settings.workerToken != nil || access.settings.identitiesRequired {
            return refuse(
                EngineError(.unauthorized, "workers must present the worker token (the server's --worker-token) or a worker's key"))
        } else {
            guard Self.isLoopback(connection.peer) else {
                return refuse(
                    EngineError(
                        .unauthorized,
                        "this server takes workers from loopback only (it has no --worker-token); this connection comes from \(connection.peer)"
                    ))
            }
        }
        // The worker's own credential from now on: a revoked worker key closes its connection (4003).
        connection.principal = worker
        metrics.countCommand("hello", outcome: "ok")
        // A worker needs its directives, not the event stream: whatever of the stream it was sent or
        // was waiting for is dropped, and replies held for the first snapshot go out now.
        connection.isWorkerHelloPending = true
        connection.outbox.discardEvents()
        connection.stream = .none
        connection.releaseHeldReplies()
        actions.append(.attachWorker(connection.id, hello))
        actions.append(.wantWritable(connection.id))
    }

    mutating func workerReport(_ report: WorkerReport, from connection: HubConnection, into actions: inout [HubAction]) {
        guard connection.isWorker else {
            metrics.countCommand(report.typeName, outcome: ErrorCode.unauthorized.rawValue)
            let error = EngineError(
                .unauthorized, "\(report.typeName) is a worker's message: say hello as a worker first (docs/workers.md)")
            return reply(connection, WireEncoder.error(error, requestId: nil), into: &actions)
        }
        metrics.countCommand(report.typeName, outcome: "ok")
        actions.append(.workerReport(connection.id, report))
    }

    /// A message from a worker whose lease ran out, while its connection closes (4009): a report on
    /// a run is answered `lease_lost` (docs/workers.md promises it for every report of an attempt the
    /// worker no longer holds), so a worker in any language kills that run; anything else is dropped.
    mutating func refuseReportAfterLeaseExpired(_ message: [UInt8], from connection: HubConnection, into actions: inout [HubAction]) {
        guard case .success(.worker(let report)) = CommandDecoder.decode(message), let (job, attempt) = report.target else { return }
        metrics.countCommand(report.typeName, outcome: ErrorCode.leaseLost.rawValue)
        let error = EngineError(.leaseLost, "attempt \(attempt) of job \(job) is not this worker's any more: its lease ran out; stop it")
        if let bytes = WorkerDirective.error(error, job: job, attempt: attempt).json { reply(connection, bytes, into: &actions) }
    }

    /// One directive from the engine for a worker's connection.
    mutating func direct(_ id: ConnectionID, _ directive: WorkerDirective, into actions: inout [HubAction]) {
        guard let connection = connections[id] else { return }
        switch directive {
        case .accepted:
            connection.isWorkerHelloPending = false
            connection.isWorker = true
            logger.info("connection \(id) from \(connection.peer) is a worker")
        case .error(let error, nil, nil) where connection.isWorkerHelloPending:
            // A refused hello: the error is said, then the connection closes (1008) so a worker with
            // a wrong jobs file stops instead of waiting for work that never comes.
            connection.isWorkerHelloPending = false
            logger.warning("worker hello from \(connection.peer) refused: \(error.message)")
            connection.pendingClose = (1008, String(error.message.prefix(120)))
        case .drop(let reason):
            logger.warning("connection \(id): \(reason); closing it")
            connection.outbox.discardEvents()
            connection.pendingClose = (Self.leaseExpiredCloseCode, reason)
            actions.append(.wantWritable(id))
            return
        case .assign, .cancel, .error, .beat:
            break
        }
        if let bytes = directive.json { reply(connection, bytes, into: &actions) }
        if connection.pendingClose != nil { actions.append(.wantWritable(id)) }
    }

    /// Whether a peer address (as libwebsockets prints it) is this machine's loopback.
    static func isLoopback(_ peer: String) -> Bool {
        peer.hasPrefix("127.") || peer == "::1" || peer.hasPrefix("::ffff:127.") || peer == "localhost"
    }
}
