import Foundation
import HeraldCrypto

/// An API key: 32 random bytes shown once as `hk_<base64url>` (43 characters after the prefix), of
/// which the users file keeps only the SHA-256.
///
/// Why SHA-256 and not argon2id as for passwords: a slow hash protects secrets a person chose, which
/// an attacker with the file can guess in order of likelihood. A key is 256 bits from a CSPRNG; no
/// guessing order exists, and 2^256 SHA-256 computations are out of reach however fast each one is.
/// A fast hash also lets every request carry the key without costing the server a slow hash each time.
public struct APIKey: Sendable, Hashable {
    public static let prefix = "hk_"
    public static let secretBytes = 32

    /// The text a client presents. Shown once, then only its hash exists.
    public let text: String

    public init(text: String) { self.text = text }

    /// A new key from libcrypto's CSPRNG.
    public static func generate() -> APIKey {
        APIKey(text: prefix + base64URL(SecureRandom.bytes(secretBytes)))
    }

    /// What the users file stores: `sha256:` and 64 hex digits of the key's text.
    public var storedHash: String { Self.hashPrefix + SHA256.hexDigest(Array(text.utf8)) }

    /// The digest a presented key is compared with.
    var digest: [UInt8] { SHA256.digest(Array(text.utf8)) }

    static let hashPrefix = "sha256:"

    /// The 32 digest bytes of a stored `sha256:<hex>`; nil when it is not one.
    static func digest(ofStoredHash stored: String) -> [UInt8]? {
        guard stored.hasPrefix(hashPrefix) else { return nil }
        let hex = Array(stored.utf8.dropFirst(hashPrefix.utf8.count))
        guard hex.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = hexValue(hex[index]), let low = hexValue(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// RFC 4648's URL-safe alphabet without padding: a key pastes into a header, a URL or a shell unquoted.
    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
