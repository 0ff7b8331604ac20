/// Where a cluster node also sends its audit events, and where any node reads the whole cluster's
/// (docs/security.md, "Audit"): a capped Redis stream. `AuditTrail` hands each event over after it
/// is written locally, so nothing is lost from `audit.jsonl` when the mirror is away.
public protocol AuditMirror: AnyObject, Sendable {
    /// Takes one event to append to the shared stream. Thread: the trail's `io` queue; never blocks
    /// (a bounded queue drained on a thread that owns a Redis connection).
    func appendAudit(_ event: AuditEvent)

    /// The newest `limit` events of the whole cluster older than `before` (the newest when nil),
    /// newest first; a failure when the shared stream cannot be read. Thread: any; never blocks;
    /// `reply` runs once, on any thread.
    func auditPage(limit: Int, before: AuditStreamID?, reply: @escaping @Sendable (Result<SharedAuditPage, EngineError>) -> Void)
}
