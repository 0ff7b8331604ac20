/// Keepalive, done by the hub rather than by libwebsockets: one sweep a second over every connection.
/// A peer heard from (any message fragment, or a pong) is alive. One silent for `pingAfterSeconds`
/// is pinged, again every `pingAfterSeconds` while it stays silent; one silent for
/// `hangupAfterSeconds` is dropped. libwebsockets' own validity policy would do the same, but it keeps
/// one timer per connection in a sorted list and re-sorts it as traffic flows: at 5,000 connections
/// that was most of the fan-out's tail latency (docs/benchmarks.md). The sweep costs one pass. The
/// same pass drops a connection whose close could not be written for `closeGraceSeconds`.
///
/// Thread: the service thread (the transport calls `sweepKeepalive` from a libwebsockets timer and
/// `heard` from its pong callback).
extension StreamHub {
    /// How often the transport should call `sweepKeepalive`, in seconds.
    public static let keepaliveSweepSeconds = 1.0

    /// The peer sent a pong (answering our ping, or unsolicited: RFC 6455 allows it as a heartbeat).
    public mutating func heard(_ id: ConnectionID, now: Double) {
        guard let connection = connections[id] else { return }
        connection.lastHeard = now
        connection.pingAskedAt = nil
    }

    /// How long a close the hub decided on (`HubConnection.pendingClose`: 4008, 1009, 4009 …) may
    /// wait for the connection's writable callback before the connection is dropped without it.
    /// The callback comes once the socket takes bytes; a reader that has stopped reading never gets
    /// one, and would otherwise stay open until the keepalive found it silent: 30 s by default when
    /// bytes of an earlier write wait for its socket (in `BatchWriter`, or in lws over TLS: it is not
    /// read meanwhile), never if none wait and it sends pongs. A reader that is merely slow takes its
    /// close frame well within this.
    public static let closeGraceSeconds = 5.0

    /// Pings the connections silent for `pingAfterSeconds` (once per that period) and drops those
    /// silent for `hangupAfterSeconds`, and those whose close waited `closeGraceSeconds` for their
    /// socket. Every WebSocket connection counts, viewers, workers and echo alike.
    public mutating func sweepKeepalive(now: Double, into actions: inout [HubAction]) {
        uptime = now
        publishMetrics()
        followCredentials(into: &actions)
        configuration.credentialUses.forgetOld()
        askHealth(into: &actions)
        let pingAfter = Double(configuration.pingAfterSeconds)
        let hangupAfter = Double(configuration.hangupAfterSeconds)
        for (id, connection) in connections where !connection.isDropped {
            if let close = connection.pendingClose, !connection.isCloseHandedOver {
                let since = connection.closeWaitingSince ?? now
                connection.closeWaitingSince = since
                if now - since >= Self.closeGraceSeconds {
                    connection.isDropped = true
                    logger.info("connection \(id) could not be sent its close (\(close.code)) within \(Int(now - since)) s; dropped")
                    actions.append(.drop(id))
                    continue
                }
            }
            let silent = now - connection.lastHeard
            if silent >= hangupAfter {
                connection.isDropped = true
                metrics.silentPeerCloses += 1
                logger.info("connection \(id) silent for \(Int(silent)) s; dropped")
                actions.append(.drop(id))
            } else if silent >= pingAfter, connection.pingAskedAt.map({ now - $0 >= pingAfter }) ?? true {
                connection.pingAskedAt = now
                connection.pingDue = true
                actions.append(.wantWritable(id))
            }
        }
    }

    /// Close code for a connection whose credential expired (a JWT's `exp`, a share link's expiry).
    static let credentialsExpiredCloseCode: UInt16 = 4001
    /// Close code for a connection whose credential was revoked (a key, a session, a share link).
    static let credentialsRevokedCloseCode: UInt16 = 4003

    /// Open connections follow their credentials (docs/security.md): one whose credential expired is
    /// closed with 4001, one whose credential was revoked or reloaded away with 4003, within a sweep.
    /// Expiry is one comparison per connection; validity is asked of the verifiers only when a
    /// reload or revocation happened since the last sweep.
    mutating func followCredentials(into actions: inout [HubAction]) {
        let revision = access.revision
        let recheck = revision != checkedAccessRevision
        checkedAccessRevision = revision
        let now = access.nowMilliseconds
        for (id, connection) in connections where !connection.isEcho && !connection.isDropped && connection.pendingClose == nil {
            let principal = connection.principal
            let close: (code: UInt16, reason: String)
            if let expiry = principal.expiresAtMilliseconds, now >= expiry {
                close = (Self.credentialsExpiredCloseCode, "credentials expired")
            } else if recheck, !access.isStillValid(principal) {
                close = (Self.credentialsRevokedCloseCode, "credentials revoked")
            } else {
                continue
            }
            metrics.credentialCloses += 1
            logger.info("connection \(id) of \(principal.name): \(close.reason); closing with \(close.code)")
            connection.outbox.discardEvents()
            connection.stream = .none
            connection.pendingClose = close
            actions.append(.wantWritable(id))
        }
    }
}
