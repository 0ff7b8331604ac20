import HeraldEngine

/// This node's health on the stream (docs/protocol.md, "health"): a node that cannot reach its
/// cluster's Redis, or cannot write its data dir, tells its viewers, so a dashboard can say why new
/// jobs are refused and what it shows may be behind. Not part of the shared stream (no `seq`): each
/// node says its own. The hub asks the engine once a sweep (`sweepKeepalive`); a change is sent to
/// every viewer at once, and while degraded each snapshot is followed by the message.
/// Thread: the service thread.
extension StreamHub {
    /// Asks for the engine's health, unless an answer is still on its way.
    mutating func askHealth(into actions: inout [HubAction]) {
        guard !healthAsked else { return }
        healthAsked = true
        actions.append(.ask(.statistics, .health))
    }

    /// The engine answered: viewers hear of a change.
    mutating func healthAnswered(_ statistics: EngineStatistics, into actions: inout [HubAction]) {
        healthAsked = false
        guard statistics.degraded != degradedReason else { return }
        degradedReason = statistics.degraded
        logger.info(degradedReason.map { "viewers are told this node is degraded: \($0)" } ?? "viewers are told this node is well again")
        let message = WireEncoder.health(degraded: degradedReason)
        for connection in connections.values where !connection.isEcho && !connection.isWorker && !connection.isWorkerHelloPending {
            guard connection.pendingClose == nil else { continue }
            reply(connection, message, into: &actions)
        }
    }

    /// Right after a snapshot: while degraded, the connection learns it too (a snapshot may be its first
    /// message, or replace all it knew).
    func followSnapshotWithHealth(_ connection: HubConnection) {
        guard let reason = degradedReason else { return }
        connection.outbox.append(OutboundFrame(kind: .reply, bytes: WebSocketFrame.text(WireEncoder.health(degraded: reason))))
    }
}
