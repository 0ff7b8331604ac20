/// A job's identity: short, unique across restarts, safe in URLs and file names.
public struct JobID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// `j-` followed by 12 random base-36 characters: no collisions in practice, nothing to escape.
    public static func random() -> JobID {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        let tail = (0..<12).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return JobID("j-" + String(tail))
    }

    /// Ids arrive from clients: accept only what `random()` could have made, and a little more.
    public static func isWellFormed(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || $0 == 0x2D || $0 == 0x5F
            }
    }

    public var description: String { rawValue }
    public static func < (lhs: JobID, rhs: JobID) -> Bool { lhs.rawValue < rhs.rawValue }
}
