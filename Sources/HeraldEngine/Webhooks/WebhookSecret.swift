import Foundation

/// A webhook's signing key, as Standard Webhooks writes it: `whsec_` and the key in base64. Only the
/// decoded bytes are kept; the value never prints them (`description`), so it cannot leak into a
/// log line, an error or an API answer by accident. Immutable; any thread.
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The HMAC key: the base64-decoded part after `whsec_`.
    public let key: [UInt8]

    static let prefix = "whsec_"

    /// Reads the text of a secret file (surrounding whitespace, a trailing newline, is ignored); nil
    /// when it is not `whsec_` followed by standard base64 of at least one byte.
    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(Self.prefix), let bytes = Data(base64Encoded: String(trimmed.dropFirst(Self.prefix.count))),
            !bytes.isEmpty
        else { return nil }
        key = Array(bytes)
    }

    public init(key: [UInt8]) { self.key = key }

    public var description: String { "whsec_…(hidden)" }
    public var debugDescription: String { description }
    /// No children: a dump of a value that holds a secret does not list the key's bytes.
    public var customMirror: Mirror { Mirror(self, children: []) }
}
