import HeraldCrypto

/// The identities of a loaded users file, ready to check credentials against: an immutable value, so
/// a server can swap in a new one when the file changes while requests use the old. Thread: any
/// (immutable; verifying allocates its own memory).
public struct UserDirectory: Sendable {
    private let users: [String: UsersFile.User]
    private let keys: [(digest: [UInt8], entry: UsersFile.Key)]
    /// Verified when the user is unknown, so that an unknown name costs the same argon2id work as a
    /// known one and the time of an answer does not tell which users exist. Its parameters are those of
    /// the file's first user (all users made by one herald share them); its salt and hash are zeros,
    /// which no password matches.
    let dummyHash: String

    public init(_ file: UsersFile) {
        users = Dictionary(file.users.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        keys = file.keys.compactMap { key in APIKey.digest(ofStoredHash: key.hash).map { ($0, key) } }
        let parameters = file.users.first.flatMap { Argon2id.parameters(of: $0.passwordHash) } ?? .standard
        // Unpadded base64 of 16 zero bytes (the salt) and of 32 (the hash).
        dummyHash = "$argon2id$v=19$\(parameters)$\(String(repeating: "A", count: 22))$\(String(repeating: "A", count: 43))"
    }

    /// Whether the file has a key of this name (it was not revoked).
    public func hasKey(named name: String) -> Bool { keys.contains { $0.entry.name == name } }

    /// The user of this name as the file has it now (its role), for revising open sessions after a reload.
    public func user(named name: String) -> (name: String, role: Role)? { users[name].map { ($0.name, $0.role) } }

    /// The user's principal when `password` is theirs; nil for a wrong password or an unknown user,
    /// which take the same time. Its source is `.session` with an empty session id: a password is
    /// shown once, to open a session, and the caller that opens it puts in its id.
    public func verifyPassword(user name: String, password: String) -> Principal? {
        guard let user = users[name] else {
            _ = Argon2id.verify(encoded: dummyHash, password: password)
            return nil
        }
        guard Argon2id.verify(encoded: user.passwordHash, password: password) else { return nil }
        return Principal(name: user.name, role: user.role, source: .session(user: user.name, session: ""))
    }

    /// The principal of the key whose text is `presented`, at wall-clock `now` (milliseconds since
    /// 1970, `WallClock.millis()`). Every stored hash is compared, in constant time, whatever matches
    /// first. Refusals are `unauthorized` and never repeat the presented text.
    public func principal(forKey presented: String, now: Int64) -> Result<Principal, AccessRefusal> {
        // Longer than any key Herald makes: not worth hashing, and not one of ours.
        guard presented.utf8.count <= 256 else { return .failure(.unauthorized("not an API key")) }
        let digest = APIKey(text: presented).digest
        var found: UsersFile.Key?
        for key in keys where HMAC.constantTimeEquals(key.digest, digest) {
            found = key.entry
        }
        guard let key = found else { return .failure(.unauthorized("unknown or revoked API key")) }
        let expiresAt = key.expiresAt.map { $0 * 1_000 }
        if let expiresAt, now >= expiresAt {
            return .failure(.unauthorized("API key \(key.name) expired at \(UsersFile.timestamp(expiresAt / 1_000))"))
        }
        return .success(
            Principal(
                name: key.name, role: key.role, scope: AccessScope(kinds: key.kinds.map(Set.init)), expiresAtMilliseconds: expiresAt,
                source: .key(name: key.name)))
    }
}
