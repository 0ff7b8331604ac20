import CLibWebSockets
import HeraldEngine

/// Accepting and refusing WebSocket connections. Thread: the service thread.
extension WebSocketServer {
    func filterHandshake(_ wsi: OpaquePointer) -> CallbackAction {
        let path = LWSHeaders.value(wsi, WSI_TOKEN_GET_URI) ?? ""
        let peer = LWSHeaders.peer(wsi)
        func refuse(_ why: String) -> CallbackAction {
            metrics.connectionsRefused += 1
            logger.info("refused WebSocket from \(peer) for \(path): \(why)")
            return .close
        }
        guard !isClosing else { return refuse("shutting down") }
        let isEcho = configuration.echoEndpoint && path == "/echo"
        guard path == "/ws" || isEcho else { return refuse("only /ws accepts WebSocket connections") }
        guard connections.count + handshakes.count < configuration.maxConnections else {
            return refuse("connection limit (\(configuration.maxConnections)) reached")
        }
        if let origin = LWSHeaders.value(wsi, WSI_TOKEN_ORIGIN) {
            let host = LWSHeaders.value(wsi, WSI_TOKEN_HOST) ?? ""
            guard Self.isAllowed(origin: origin, host: host, allowList: configuration.allowedOrigins) else {
                return refuse("origin \(origin) is not allowed")
            }
        }
        let query = LWSHeaders.query(wsi)
        var resume: (String, Int64)?
        if let epoch = query["epoch"], let since = query["since"].flatMap({ Int64($0) }), since >= 0 {
            resume = (epoch, since)
        }
        let bearer = LWSHeaders.value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION).flatMap { header in
            header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : nil
        }
        let authorized = authorizer.isRequired ? authorizer.accepts(bearer ?? query["token"]) : true
        handshakes[wsi] = Handshake(resume: resume, authorized: authorized, peer: peer, echo: isEcho)
        return .proceed
    }

    /// Same-origin pages (Origin's host equals the Host header) and listed origins are allowed.
    static func isAllowed(origin: String, host: String, allowList: [String]) -> Bool {
        if allowList.contains(origin) || allowList.contains("*") { return true }
        for scheme in ["http://", "https://"] where origin.hasPrefix(scheme) {
            return String(origin.dropFirst(scheme.count)).lowercased() == host.lowercased()
        }
        return false
    }

    func establish(_ wsi: OpaquePointer) -> CallbackAction {
        let handshake = handshakes.removeValue(forKey: wsi) ?? Handshake(resume: nil, authorized: !authorizer.isRequired, peer: "?")
        let connection = Connection(
            id: nextConnectionID, peer: handshake.peer,
            outbox: Outbox(
                capBytes: configuration.outboxCapBytes, resyncLimit: configuration.resyncLimit,
                resyncWindow: configuration.resyncWindowSeconds),
            commandBucket: TokenBucket(rate: configuration.commandsPerSecond, burst: configuration.commandBurst),
            isAuthorized: handshake.authorized)
        nextConnectionID += 1
        connections[wsi] = connection
        if handshake.echo {
            connection.isEcho = true
            connection.coveredThrough = .max
            return .proceed
        }
        metrics.connectionsAccepted += 1
        metrics.connectionsOpen = connections.count
        logger.info("connection \(connection.id) opened from \(connection.peer)")
        // The snapshot (or resume) sets `coveredThrough`: events still in the inbox up to that seq
        // are skipped for this connection, later ones follow it.
        if let (epoch, since) = handshake.resume {
            resume(connection, epoch: epoch, since: since)
        } else {
            sendSnapshot(to: connection, reason: .connect)
        }
        lws_callback_on_writable(wsi)
        return .proceed
    }

    func close(_ wsi: OpaquePointer) {
        handshakes.removeValue(forKey: wsi)
        guard let connection = connections.removeValue(forKey: wsi) else { return }
        metrics.connectionsOpen = connections.count
        let code = connection.pendingClose.map { " (\($0.code) \($0.reason))" } ?? connection.closeCodeFromPeer.map { " (peer sent \($0))" } ?? ""
        logger.info("connection \(connection.id) closed\(code)")
    }
}
