import HeraldAccess
import Foundation
import HeraldCrypto

/// What share links need to outlive a restart (and, later, to be shared by a cluster's nodes): the
/// signing key and its generation, the links made and the links revoked, each until it expires.
/// Saved as JSON (`share-links.json` in the data folder, mode 0600: it holds the key) after every
/// change with `save(to:)`, which replaces the file atomically.
public struct ShareLinkState: Codable, Sendable, Equatable {
    /// A revoked link, kept until its own expiry (after that its token fails as expired anyway).
    public struct Revoked: Codable, Sendable, Hashable {
        public let id: String
        public let expiresAt: Int64

        public init(id: String, expiresAt: Int64) {
            self.id = id
            self.expiresAt = expiresAt
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The file format's version.
    public var version = 1
    /// Tokens carry the generation (`kid`) they were signed in; only the current one verifies.
    public var generation: Int
    /// The HMAC-SHA256 key, 32 random bytes in standard base64.
    public var key: String
    /// Links made in this generation that have not expired, oldest first.
    public var links: [ShareLinkRecord] = []
    /// Links revoked in this generation that have not expired.
    public var revoked: [Revoked] = []

    /// A state with a new random key.
    public init(generation: Int = 1) {
        self.generation = generation
        self.key = Data(SecureRandom.bytes(32)).base64EncodedString()
    }

    /// The key's bytes; nil when the text is not base64 of 32 bytes (a hand-edited file).
    var keyBytes: [UInt8]? {
        guard let data = Data(base64Encoded: key), data.count == 32 else { return nil }
        return [UInt8](data)
    }

    /// Reads a state saved by `save(to:)`; nil when there is no file yet. Throws, naming the file, for
    /// one that cannot be read or is not such a state: a new key would silently end every link.
    public static func load(from url: URL) throws -> ShareLinkState? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let state: ShareLinkState
        do {
            state = try JSONDecoder().decode(ShareLinkState.self, from: Data(contentsOf: url))
        } catch {
            throw Failure(description: "\(url.path) is not a share-link state file (\(error)); move it aside to start with a new key")
        }
        guard state.version == 1, state.generation >= 1, state.keyBytes != nil else {
            throw Failure(description: "\(url.path): unsupported version or a key that is not 32 bytes of base64")
        }
        return state
    }

    /// Replaces the file atomically (temporary file, fsync, rename), readable by its owner only.
    public func save(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFile.write(try encoder.encode(self), to: url, permissions: 0o600)
    }
}
