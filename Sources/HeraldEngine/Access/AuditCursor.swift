import HeraldAccess
/// Where an audit line is: its segment's number and its byte offset there. Segments keep their
/// number when `audit.jsonl` is rotated into `audit/`, so a cursor stays good until its segment is
/// deleted. Newer lines have greater cursors.
public struct AuditCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let segment: Int
    public let offset: Int

    public init(segment: Int, offset: Int) {
        self.segment = segment
        self.offset = offset
    }

    /// `<segment>.<offset>`: URL-safe as it is.
    public var text: String { "\(segment).\(offset)" }
    public var description: String { text }

    /// Reads `text` back; nil for anything it could not have made.
    public init?(text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 18 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let segment = Int(parts[0]), let offset = Int(parts[1])
        else { return nil }
        self.init(segment: segment, offset: offset)
    }

    public static func < (left: AuditCursor, right: AuditCursor) -> Bool {
        (left.segment, left.offset) < (right.segment, right.offset)
    }
}
