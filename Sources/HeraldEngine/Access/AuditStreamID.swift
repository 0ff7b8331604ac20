/// A Redis stream entry id, `<milliseconds>-<sequence>`: where an event is in a cluster's shared
/// audit, and the `before` cursor of its pages (opaque to clients, like `AuditCursor`). Newer entries
/// have greater ids. Thread: any (a value).
public struct AuditStreamID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let milliseconds: UInt64
    public let sequence: UInt64

    public init(milliseconds: UInt64, sequence: UInt64) {
        self.milliseconds = milliseconds
        self.sequence = sequence
    }

    /// The id as Redis writes it (URL-safe as it is).
    public var text: String { "\(milliseconds)-\(sequence)" }
    public var description: String { text }

    /// Reads an id back: two runs of 1 to 20 digits joined by `-`, each within 64 bits; nil for
    /// anything else (a local `AuditCursor`'s `<segment>.<offset>` among them).
    public init?(text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 20 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let milliseconds = UInt64(parts[0]), let sequence = UInt64(parts[1])
        else { return nil }
        self.init(milliseconds: milliseconds, sequence: sequence)
    }

    public static func < (left: AuditStreamID, right: AuditStreamID) -> Bool {
        (left.milliseconds, left.sequence) < (right.milliseconds, right.sequence)
    }
}
