/// Keepalive, done by the hub rather than by libwebsockets: one sweep a second over every connection.
/// A peer heard from (any message fragment, or a pong) is alive. One silent for `pingAfterSeconds`
/// is pinged, again every `pingAfterSeconds` while it stays silent; one silent for
/// `hangupAfterSeconds` is dropped. libwebsockets' own validity policy would do the same, but it keeps
/// one timer per connection in a sorted list and re-sorts it as traffic flows: at 5,000 connections
/// that was most of the fan-out's tail latency (docs/benchmarks.md). The sweep costs one pass.
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

    /// Pings the connections silent for `pingAfterSeconds` (once per that period) and drops those
    /// silent for `hangupAfterSeconds`. Every WebSocket connection counts, viewers, workers and echo alike.
    public mutating func sweepKeepalive(now: Double, into actions: inout [HubAction]) {
        uptime = now
        let pingAfter = Double(configuration.pingAfterSeconds)
        let hangupAfter = Double(configuration.hangupAfterSeconds)
        for (id, connection) in connections where !connection.isDroppedForSilence {
            let silent = now - connection.lastHeard
            if silent >= hangupAfter {
                connection.isDroppedForSilence = true
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
