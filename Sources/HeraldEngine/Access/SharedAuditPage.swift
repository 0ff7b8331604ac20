import HeraldAccess

/// A page of a cluster's shared audit, newest first, as `GET /api/audit` answers it on any node:
/// `{"events":[…],"next":"…","source":"cluster"}`, each event with its `node`; `next` (the `before` of
/// the following page, an entry id) present only when older events may exist. Thread: any (a value).
public struct SharedAuditPage: Sendable, Equatable {
    public var entries: [AuditStreamEntry] = []
    public var next: AuditStreamID?

    public init(entries: [AuditStreamEntry] = [], next: AuditStreamID? = nil) {
        self.entries = entries
        self.next = next
    }

    /// The page made of what a reverse range read of `limit` entries found (`XREVRANGE … COUNT
    /// limit`), given as ids and flat field lists, newest first. Entries that do not read back are
    /// skipped; a full read may have older entries after it, so its last id is `next`.
    public init(limit: Int, read: [(id: String, fields: [[UInt8]])]) {
        self.entries = read.compactMap { AuditStreamEntry(id: $0.id, fields: $0.fields) }
        self.next = read.count >= limit ? read.last.flatMap { AuditStreamID(text: $0.id) } : nil
    }

    public var json: JSONValue {
        var object: JSONObject = ["events": .array(entries.map(\.json)), "source": .string("cluster")]
        if let next { object["next"] = .string(next.text) }
        return .object(object)
    }
}
