import HeraldAccess
import HeraldEngine

/// The WebSocket and HTTP server's logic, with no sockets: connections by integer id, their outboxes
/// and the slow-client policy (collapse → resync → close 4008), rate limits, authorisation, resume
/// decisions, and the REST routes. It takes transport events (handshakes, messages, writable
/// sockets, closes, HTTP requests) and deliveries from the inbox, and answers with `HubAction`s that
/// the transport performs: asks for writable callbacks, bytes to write, closes, requests for the
/// engine. It never blocks and never calls the engine; the engine's answers come back as deliveries.
///
/// Thread: the service thread only (a struct the transport owns and never copies: its connections
/// are objects). `now` is seconds on a monotonic clock, passed in so tests control time.
public struct StreamHub {
    public let configuration: ServerConfiguration
    let logger: Logger
    /// Who may see and do what (docs/security.md): every handshake, request and `auth` asks it.
    public let access: AccessControl
    /// `access.revision` when open connections' principals were last checked (`sweepKeepalive`).
    var checkedAccessRevision = 0
    /// The kind of each job the stream has told of lately, for connections scoped to kinds: progress,
    /// log and results events name only their job (`JobKinds`).
    var jobKinds = JobKinds()
    /// Why this node is degraded, as its viewers were last told; nil: well (`StreamHub+Health`).
    var degradedReason: String?
    /// Whether a health question is on its way to the engine.
    var healthAsked = false
    let api: HTTPAPI
    /// The engine's epoch, for `/healthz`.
    let epoch: String

    var connections: [ConnectionID: HubConnection] = [:]
    /// How many of `connections` are more than `backlogThreshold` behind (`backlogCount`).
    var backloggedConnections = 0
    /// The connections one delivery asks to write: kept between deliveries for its capacity.
    var wanting: [ConnectionID] = []
    /// The live stream, framed once and shared by every connection: the hub's own when it is the
    /// server's one service thread (`sharedRing` nil), else unused (a minimal one).
    var ring: FrameRing
    /// With several service threads: the ring (which the hub never writes), connection limit and
    /// metrics board the threads share; the view of the ring taken once per delivery; and, while an
    /// answer stamped with the ring's end index is applied, that index (`StreamHub+SharedRing`).
    let sharing: HubSharing?
    var sharedView: RingView?
    var readStamp: Int64?
    var handshakes: [ConnectionID: PendingHandshake] = [:]
    /// HTTP exchanges waiting for the engine or a file, so a late answer for a closed one is dropped.
    var pendingHTTP: Set<ConnectionID> = []
    public internal(set) var metrics = ServerMetrics()
    public internal(set) var isClosing = false
    /// Bumped when the inbox overflowed: a snapshot asked for earlier does not cover what was dropped.
    var overflowGeneration = 0
    /// The generation of the snapshot request in flight, if any: one request serves every waiter.
    var snapshotInFlight: Int?
    /// Seconds since start, as last told by the transport (for `/healthz` and `/metrics`).
    var uptime: Double = 0
    /// What the last batch `writable` gave holds of the ring, until the next (`StreamHub+CutWrites`).
    var lastRingBatch: RingBatch?

    /// What a handshake said, kept from the filter until the connection is established.
    struct PendingHandshake {
        var resume: (epoch: String, since: Int64)?
        var principal: Principal
        var peer: String
        var echo: Bool
    }

    /// `sharing`: what a server with several service threads shares between their hubs; nil (the
    /// default): one service thread, and the hub frames events into a ring of its own.
    public init(configuration: ServerConfiguration, epoch: String, logger: Logger, version: String, sharing: HubSharing? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.epoch = epoch
        self.access = configuration.access ?? AccessControl(settings: configuration.accessSettings)
        self.checkedAccessRevision = access.revision
        self.ring = FrameRing(capacityBytes: sharing == nil ? configuration.ringBytes : 0)
        self.sharing = sharing
        self.sharedView = sharing.map { _ in RingView.empty }
        self.api = HTTPAPI(version: version)
    }

    /// Open WebSocket connections.
    public var connectionCount: Int { connections.count }

    // MARK: - Handshakes and connections

    /// Accepts or refuses a WebSocket handshake (path, limits, origin) and remembers what it said.
    public mutating func handshake(_ id: ConnectionID, _ request: Handshake) -> HandshakeDecision {
        func refuse(_ why: String) -> HandshakeDecision {
            metrics.connectionsRefused += 1
            logger.info("refused WebSocket from \(request.peer) for \(request.path): \(why)")
            return .refuse(why)
        }
        guard !isClosing else { return refuse("shutting down") }
        let isEcho = configuration.echoEndpoint && request.path == "/echo"
        guard request.path == "/ws" || isEcho else { return refuse("only /ws accepts WebSocket connections") }
        guard (sharing?.connections.count ?? connections.count + handshakes.count) < configuration.maxConnections else {
            return refuse("connection limit (\(configuration.maxConnections)) reached")
        }
        if let origin = request.origin {
            guard OriginPolicy.isAllowed(origin: origin, host: request.host, allowList: configuration.allowedOrigins) else {
                return refuse("origin \(origin) is not allowed")
            }
        }
        var resume: (String, Int64)?
        if let epoch = request.query["epoch"], let since = request.query["since"].flatMap({ Int64($0) }), since >= 0 {
            resume = (epoch, since)
        }
        let credentials = PresentedCredentials(
            bearer: PresentedCredentials.bearer(fromAuthorization: request.authorization) ?? request.query["t"] ?? request.query["token"],
            sessionCookie: SessionCookie.value(in: request.cookie), proxyUser: request.proxyUser, peerAddress: request.peer)
        switch isEcho ? .success(.anonymousAdmin) : access.authenticate(credentials) {
        case .success(let principal):
            // Several threads: a place under the server's limit, taken now (another thread may have
            // taken the last since the check above) and given back when the id is closed.
            if let budget = sharing?.connections, !budget.take() {
                return refuse("connection limit (\(configuration.maxConnections)) reached")
            }
            handshakes[id] = PendingHandshake(resume: resume, principal: principal, peer: request.peer, echo: isEcho)
            return .accept
        case .failure(let refusal):
            metrics.connectionsRefused += 1
            auditRefused(EngineError(refusal), principal: nil, peer: request.peer)
            logger.info("refused WebSocket from \(request.peer): \(refusal.message)")
            return .unauthorized(refusal.message)
        }
    }

    /// The handshake completed: the connection gets a snapshot (or its resume) before any event.
    public mutating func opened(_ id: ConnectionID, now: Double, into actions: inout [HubAction]) {
        let pending = handshakes.removeValue(forKey: id)
        let handshake =
            pending
            ?? PendingHandshake(
                resume: nil, principal: (try? access.anonymous().get()) ?? Principal(name: "anonymous", role: .viewer, source: .anonymous),
                peer: "?", echo: false)
        let connection = HubConnection(
            id: id, peer: handshake.peer,
            outbox: Outbox(
                capBytes: configuration.outboxCapBytes, resyncLimit: configuration.resyncLimit,
                resyncWindow: configuration.resyncWindowSeconds),
            commandBucket: TokenBucket(rate: configuration.commandsPerSecond, burst: configuration.commandBurst),
            principal: handshake.principal, isEcho: handshake.echo, now: now)
        connection.holdsBudgetPlace = pending != nil || sharing?.connections.take() == true
        connections[id] = connection
        guard !connection.isEcho else { return }
        metrics.connectionsAccepted += 1
        metrics.connectionsOpen = connections.count
        auditOpened(connection.principal, peer: connection.peer)
        logger.info(
            "connection \(id) opened from \(connection.peer) for \(connection.principal.name) (\(connection.principal.role.rawValue))")
        if let (epoch, since) = handshake.resume {
            resume(connection, epoch: epoch, since: since, into: &actions)
        } else {
            awaitSnapshot(connection, reason: .connect, into: &actions)
        }
    }

    /// The peer sent a close frame.
    public mutating func peerClosed(_ id: ConnectionID, code: UInt16?) {
        connections[id]?.closeCodeFromPeer = code
    }

    /// The transport is done with this id (a WebSocket, a handshake that never completed, or an
    /// HTTP exchange): forget everything about it; a worker's attempts are lost.
    public mutating func closed(_ id: ConnectionID, into actions: inout [HubAction]) {
        let wasHandshake = handshakes.removeValue(forKey: id) != nil
        pendingHTTP.remove(id)
        let connection = connections.removeValue(forKey: id)
        if wasHandshake || connection?.holdsBudgetPlace == true { sharing?.connections.giveBack() }
        guard let connection else { return }
        if connection.countedAsBacklogged { backloggedConnections -= 1 }
        guard !connection.isEcho else { return }
        if connection.isWorker || connection.isWorkerHelloPending { actions.append(.detachWorker(id)) }
        metrics.connectionsOpen = connections.count
        let code =
            connection.pendingClose.map { " (\($0.code) \($0.reason))" } ?? connection.closeCodeFromPeer.map { " (peer sent \($0))" } ?? ""
        logger.info("connection \(id) closed\(code)")
    }

    /// Starts a graceful stop: no new connections, every client closed with 1001.
    public mutating func beginClosing(into actions: inout [HubAction]) {
        guard !isClosing else { return }
        isClosing = true
        logger.info("shutting down: closing \(connections.count) connection(s)")
        for (id, connection) in connections {
            connection.outbox.discardEvents()
            connection.stream = .none
            connection.pendingClose = (1001, "server shutting down")
            actions.append(.wantWritable(id))
        }
    }

    // MARK: - Writing

    /// Fills `buffer` with as many whole frames as fit one write (a raw write of frames framed in
    /// advance), or says to close. Called from the transport's writable callback, which writes the
    /// batch at once. `nowMicros` is the wall clock (microseconds since 1970, the clock of events' `ts`),
    /// read by the transport: the batch's oldest live event is observed as its delivery latency.
    /// The connection's own frames go first (a snapshot before the events after it), then the ring
    /// from its cursor.
    public mutating func writable(
        _ id: ConnectionID, nowMicros: Int64, into buffer: inout [UInt8], actions: inout [HubAction]
    ) -> WriteStep {
        buffer.removeAll(keepingCapacity: true)
        guard let connection = connections[id] else { return .idle }
        defer { recountBacklog(of: connection) }
        if connection.cursor.map({ $0 < ringFirstIndex }) == true {
            // Fell off the ring since the last delivery (a delivery checks too; this is the backstop).
            fellBehind(connection, now: uptime, into: &actions)
        }
        if connection.isBehind {
            // Its socket takes bytes again (the transport calls this only once any unsent tail is
            // gone): now a snapshot is worth holding for it.
            connection.stream = .awaitingSnapshot(reason: .resync, generation: overflowGeneration)
            requestSnapshotIfNeeded(into: &actions)
        }
        let hasStream = connection.cursor.map { $0 < ringEndIndex } ?? false
        if connection.outbox.isEmpty, !hasStream, let (code, reason) = connection.pendingClose {
            connection.isCloseHandedOver = true
            return .close(code: code, reason: reason)
        }
        let ping = connection.pingDue && connection.pendingClose == nil
        guard !connection.outbox.isEmpty || hasStream || ping else { return .idle }
        var oldest: Int64?
        var frames = 0
        lastRingBatch = nil
        if !connection.outbox.isEmpty {
            let before = connection.outbox.count
            oldest = connection.outbox.takeBatch(limit: configuration.writeBatchBytes, into: &buffer)
            frames = before - connection.outbox.count
        }
        if connection.outbox.isEmpty, let cursor = connection.cursor, cursor < ringEndIndex, buffer.count < configuration.writeBatchBytes {
            let start = buffer.count
            let taken = copyRing(from: cursor, limit: configuration.writeBatchBytes, into: &buffer, scope: connection.scope)
            if connection.scope == nil {
                lastRingBatch = RingBatch(connection: id, offset: start, first: cursor, end: taken.next, endsWithPing: false)
            }
            connection.cursor = taken.next
            frames += taken.frames
            if let ts = taken.oldest, ts < oldest ?? .max { oldest = ts }
        }
        if ping {
            // The keepalive's ping, after whole frames (lws sends any unsent tail of the last write first).
            connection.pingDue = false
            lastRingBatch?.endsWithPing = true
            buffer.append(contentsOf: WebSocketFrame.ping)
            frames += 1
        }
        // A scoped connection may find no frame of its own among the new ones: its cursor moved past
        // them, and there is nothing to write.
        if buffer.isEmpty { return .idle }
        if let oldest { metrics.observeDeliveryLatency(seconds: Double(nowMicros - oldest) / 1e6) }
        metrics.framesSent += frames
        metrics.bytesSent += buffer.count
        let more = !connection.outbox.isEmpty || connection.cursor.map { $0 < ringEndIndex } ?? false || connection.pendingClose != nil
        return .write(frames: frames, more: more)
    }

    // MARK: - Snapshots and resumes

    /// Drops the connection's queued events and has it wait for a snapshot; asks the engine for one
    /// unless a request that covers it is in flight.
    mutating func awaitSnapshot(_ connection: HubConnection, reason: WireEncoder.SnapshotReason, into actions: inout [HubAction]) {
        connection.outbox.discardEvents()
        connection.stream = .awaitingSnapshot(reason: reason, generation: overflowGeneration)
        requestSnapshotIfNeeded(into: &actions)
    }

    mutating func requestSnapshotIfNeeded(into actions: inout [HubAction]) {
        if let inFlight = snapshotInFlight, inFlight >= overflowGeneration { return }
        snapshotInFlight = overflowGeneration
        actions.append(.ask(.snapshot, .snapshot(generation: overflowGeneration)))
    }

    /// Points the connection's stream at `since`: the engine answers with the missed events or a snapshot.
    mutating func resume(_ connection: HubConnection, epoch: String, since: Int64, into actions: inout [HubAction]) {
        connection.outbox.discardEvents()
        connection.stream = .awaitingResume
        actions.append(.ask(.resume(epoch: epoch, since: since), .resume(connection.id, since: since)))
    }

    /// Queues a reply frame for one connection.
    mutating func reply(_ connection: HubConnection, _ payload: [UInt8], into actions: inout [HubAction]) {
        let frame = OutboundFrame(kind: .reply, bytes: WebSocketFrame.text(payload))
        if connection.heldReplies != nil {
            connection.heldReplies?.append(frame)
            return
        }
        let wasEmpty = connection.outbox.isEmpty
        connection.outbox.append(frame)
        if wasEmpty { actions.append(.wantWritable(connection.id)) }
    }
}
