import Foundation

/// The users file (`herald serve --users FILE`, edited by `herald users` and `herald keys`): who may
/// sign in with a password, which API keys exist, and the role and scope of each. It holds no secret a
/// reader could use: argon2id hashes of passwords and SHA-256 hashes of keys. The JSON format
/// (version 1) and its rules are in `UsersFile+JSON.swift` and docs/security.md.
public struct UsersFile: Sendable, Hashable {
    /// A person who signs in with a password.
    public struct User: Sendable, Hashable {
        public var name: String
        public var role: Role
        /// An argon2id PHC string (`Argon2id.hash`).
        public var passwordHash: String

        public init(name: String, role: Role, passwordHash: String) {
            self.name = name
            self.role = role
            self.passwordHash = passwordHash
        }
    }

    /// An API key, by the hash of its text (`APIKey.storedHash`).
    public struct Key: Sendable, Hashable {
        public var name: String
        public var role: Role
        /// The job kinds the key reaches; nil: every kind.
        public var kinds: [String]?
        /// `sha256:` and 64 lowercase hex digits.
        public var hash: String
        /// Seconds since 1970 (written as ISO 8601 UTC, whole seconds).
        public var createdAt: Int64
        /// Seconds since 1970 from which the key is refused; nil: until revoked.
        public var expiresAt: Int64?

        public init(name: String, role: Role, kinds: [String]? = nil, hash: String, createdAt: Int64, expiresAt: Int64? = nil) {
            self.name = name
            self.role = role
            self.kinds = kinds
            self.hash = hash
            self.createdAt = createdAt
            self.expiresAt = expiresAt
        }
    }

    public var users: [User]
    public var keys: [Key]

    public init(users: [User] = [], keys: [Key] = []) {
        self.users = users
        self.keys = keys
    }

    /// Users and keys share one namespace: a principal's name is what `startedBy` records and what an
    /// operator's right to cancel its own jobs compares, so a key named like a user would act as them.
    public func isNameTaken(_ name: String) -> Bool {
        users.contains { $0.name == name } || keys.contains { $0.name == name }
    }

    /// Why `name` cannot name a user or a key; nil when it can. Names are what the audit and
    /// `startedBy` show: 1 to 64 letters, digits and `. _ @ -`, starting with a letter or digit, and
    /// not `anonymous` (the name of everyone on a server without identities).
    public static func problem(withName name: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@-".utf8)
        guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy({ allowed.contains($0) }),
            let first = name.unicodeScalars.first, CharacterSet.alphanumerics.contains(first)
        else {
            return "a name must be 1 to 64 letters, digits and . _ @ -, starting with a letter or digit, not \"\(name)\""
        }
        if name == "anonymous" { return "\"anonymous\" is the name of everyone on a server without identities" }
        return nil
    }

    /// Why `kind` cannot be in a key's kinds; nil when it can (the jobs file's rule for kind names).
    public static func problem(withKind kind: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-".utf8)
        guard (1...64).contains(kind.utf8.count), kind.utf8.allSatisfy({ allowed.contains($0) }),
            let first = kind.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return "a kind must match ^[a-z][a-z0-9_-]{0,63}$, not \"\(kind)\"" }
        return nil
    }

    /// Adds a user; refuses a name already used by a user or a key, or one `problem(withName:)` refuses.
    public mutating func add(_ user: User) throws(UsersFileError) {
        try checkNew(name: user.name)
        guard Argon2idHashCheck.problem(with: user.passwordHash) == nil else {
            throw UsersFileError("the password of \"\(user.name)\" is not an argon2id hash")
        }
        users.append(user)
    }

    /// Adds a key; refuses a name already used by a user or a key.
    public mutating func add(_ key: Key) throws(UsersFileError) {
        try checkNew(name: key.name)
        keys.append(key)
    }

    /// Removes the user `name`; false when there is none.
    public mutating func removeUser(named name: String) -> Bool {
        guard let index = users.firstIndex(where: { $0.name == name }) else { return false }
        users.remove(at: index)
        return true
    }

    /// Removes the key `name`; false when there is none.
    public mutating func removeKey(named name: String) -> Bool {
        guard let index = keys.firstIndex(where: { $0.name == name }) else { return false }
        keys.remove(at: index)
        return true
    }

    private func checkNew(name: String) throws(UsersFileError) {
        if let problem = Self.problem(withName: name) { throw UsersFileError(problem) }
        if users.contains(where: { $0.name == name }) { throw UsersFileError("there is already a user named \"\(name)\"") }
        if keys.contains(where: { $0.name == name }) { throw UsersFileError("there is already a key named \"\(name)\"") }
    }
}
