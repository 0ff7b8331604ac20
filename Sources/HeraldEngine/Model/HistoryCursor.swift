/// Where a history page ends: a job's `createdAt` and id, the key history is ordered by (newest
/// first, ties broken by id). Clients get it as an opaque string (`next`) and hand it back as
/// `before`; the next page holds the jobs strictly older than it.
public struct HistoryCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let createdAt: Int64
    public let id: JobID

    public init(createdAt: Int64, id: JobID) {
        self.createdAt = createdAt
        self.id = id
    }

    public init(_ record: JobRecord) {
        self.init(createdAt: record.createdAt, id: record.id)
    }

    /// `<createdAt>.<id>`: URL-safe as it is (an id never holds a dot), and readable in a log.
    public var text: String { "\(createdAt).\(id.rawValue)" }

    /// Reads `text` back; nil for anything `text` could not have made.
    public init?(text: String) {
        guard let dot = text.firstIndex(of: ".") else { return nil }
        let time = text[..<dot]
        let id = String(text[text.index(after: dot)...])
        guard !time.isEmpty, time.utf8.count <= 19, time.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let createdAt = Int64(time),
            JobID.isWellFormed(id)
        else { return nil }
        self.init(createdAt: createdAt, id: JobID(id))
    }

    public var description: String { text }

    public static func < (lhs: HistoryCursor, rhs: HistoryCursor) -> Bool {
        lhs.createdAt != rhs.createdAt ? lhs.createdAt < rhs.createdAt : lhs.id < rhs.id
    }
}
