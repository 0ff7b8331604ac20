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
}
