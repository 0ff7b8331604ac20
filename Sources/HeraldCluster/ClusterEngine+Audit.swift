import Foundation
import HeraldEngine
import HeraldRedis

/// The cluster's shared audit (docs/security.md, "Audit"): every node appends its audit events to
/// one capped stream in Redis (`ClusterKeys.audit`, `MAXLEN ~ settings.auditLength`), so any node
/// answers `GET /api/audit` for the whole cluster.
///
/// Appending never waits for Redis: the trail's `io` queue adds the event to `auditBacklog` (bounded;
/// the oldest dropped, counted and logged, when Redis is away long) and `commandQueue`, which owns
/// the node's command connection, drains it, a pipeline of `XADD`s at a time. A drain that finds
/// Redis away stops; the reaper's tick (once a second, on `commandQueue`) tries again.
extension ClusterEngine: AuditMirror {
    /// Events appended per round trip.
    static let auditBatch = 100

    /// Thread: the trail's `io` queue; never blocks (a lock held for an append).
    public func appendAudit(_ event: AuditEvent) {
        let (mustDrain, droppedOne, dropped) = auditBacklog.withLock { backlog in
            let (mustDrain, droppedOne) = backlog.add(AuditStreamEntry.fields(node: settings.node, event: event))
            return (mustDrain, droppedOne, backlog.dropped)
        }
        if droppedOne {
            // The first, then every ten-thousandth: a long outage does not flood the log.
            if dropped == 1 || dropped.isMultiple(of: 10_000) {
                logger(
                    "audit: \(dropped) event(s) left out of the shared audit so far: more than \(Self.auditBacklogLimit) waited for Redis (each is still in this node's audit.jsonl)"
                )
            }
        }
        if mustDrain { commandQueue.async { [self] in drainAudit() } }
    }

    /// Appends what waits, a batch at a time, until nothing does or Redis fails. Thread: `commandQueue`.
    func drainAudit() {
        while true {
            let (batch, droppedWhenTaken) = auditBacklog.withLock { ($0.batch(Self.auditBatch), $0.dropped) }
            guard !batch.isEmpty else {
                if !auditBacklog.withLock({ $0.finishDrain() }) { return }
                continue
            }
            // Degraded: the reaper's next tick tries again (a reconnection is the links' business).
            guard unavailable() == nil else { return }
            let keys = settings.keys
            let cap = Array(String(settings.auditLength).utf8)
            let commands = batch.map { fields in
                [Array("XADD".utf8), Array(keys.audit.utf8), Array("MAXLEN".utf8), Array("~".utf8), cap, Array("*".utf8)] + fields
            }
            let replies: [RedisReply]
            do {
                replies = try self.commands().pipeline(commands)
            } catch {
                _ = commandFailed(error)
                return
            }
            if let refused = replies.first(where: \.isError)?.errorMessage {
                // Not a connection problem: sending them again would be refused again.
                logger("audit: Redis refused an append to \(keys.audit): \(refused)")
            }
            auditBacklog.withLock { $0.settle(batch.count, droppedWhenTaken: droppedWhenTaken) }
        }
    }

    /// Thread: any; the read runs on `commandQueue`, `reply` there too.
    public func auditPage(
        limit: Int, before: AuditStreamID?, reply: @escaping @Sendable (Result<SharedAuditPage, EngineError>) -> Void
    ) {
        commandQueue.async { [self] in
            if let refusal = unavailable() { return reply(.failure(refusal)) }
            let newest = before.map { "(" + $0.text } ?? "+"
            do {
                let answer = try commands().command("XREVRANGE", settings.keys.audit, newest, "-", "COUNT", String(limit))
                if let message = answer.errorMessage {
                    return reply(.failure(EngineError(.unavailable, "Redis refused to read the shared audit: \(message)")))
                }
                let read = (answer.array ?? []).compactMap { entry -> (id: String, fields: [[UInt8]])? in
                    guard let parts = entry.array, parts.count == 2, let id = parts[0].string else { return nil }
                    return (id, (parts[1].array ?? []).compactMap(\.bytes))
                }
                reply(.success(SharedAuditPage(limit: limit, read: read)))
            } catch {
                reply(.failure(commandFailed(error)))
            }
        }
    }
}
