import HeraldAccess

/// Audit events, newest first, as `GET /api/audit` answers them: `{"events":[…],"next":"…"}`, `next`
/// (the `before` of the following page) present only when older events may exist.
public struct AuditPage: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public let cursor: AuditCursor
        public let event: AuditEvent
    }

    public var entries: [Entry] = []
    public var next: AuditCursor?

    public var json: JSONValue { json(source: nil) }

    /// With `"source": source` when it is set: a cluster node that answers from its own file because
    /// the shared audit cannot be read says `"local"`.
    public func json(source: String?) -> JSONValue {
        var object: JSONObject = ["events": .array(entries.map(\.event.json))]
        if let next { object["next"] = .string(next.text) }
        if let source { object["source"] = .string(source) }
        return .object(object)
    }
}
