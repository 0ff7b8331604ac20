import HeraldCrypto

/// The dashboard's sign-in sessions. A session has a public id (in `CredentialSource.session`, the
/// audit and the admin's list) and a secret (32 random bytes); the cookie holds `<id>.<secret>`, in
/// base64url. The table keeps only an HMAC of the secret under a key made for this process, so a
/// memory dump or a debug listing holds nothing a browser could present, and it compares MACs in
/// constant time. Sessions end after `idleTimeout` without use (each use pushes the end back), at
/// sign-out, when their user is removed or revoked, or when the table is full and they are the
/// least recently used. A restart ends every session (the key is not kept): people sign in again.
///
/// Time is the caller's (wall-clock milliseconds). A value: the hub owns one on its service thread.
public struct SessionTable: Sendable {
    /// What an admin's list shows of a session: never its secret.
    public struct Session: Sendable, Hashable {
        public let id: String
        public var principal: Principal
        /// The client's address at sign-in.
        public let address: String?
        public let createdAt: Int64
        public fileprivate(set) var lastUsedAt: Int64
        /// When it ends unless used before.
        public let idleTimeout: Int64
        public var expiresAt: Int64 { lastUsedAt + idleTimeout }
        fileprivate var secretMAC: [UInt8]
    }

    public let idleTimeout: Duration
    public let maxSessions: Int
    private let macKey: [UInt8]
    private var sessions: [String: Session] = [:]

    /// - Parameters:
    ///   - idleTimeout: `--session-idle` (12 hours unless set).
    ///   - maxSessions: how many are held at most; a sign-in past it ends the least recently used.
    public init(idleTimeout: Duration = .seconds(12 * 3600), maxSessions: Int = 10_000) {
        self.idleTimeout = idleTimeout
        self.maxSessions = max(1, maxSessions)
        self.macKey = SecureRandom.bytes(32)
    }

    /// Bytes of a session's secret, and of its public id.
    static let secretBytes = 32
    static let idBytes = 12

    /// Starts a session for a principal that just proved itself; returns it and the cookie's value,
    /// which appears nowhere else (hand it to `Set-Cookie` and forget it).
    public mutating func create(for principal: Principal, address: String?, now: Int64) -> (session: Session, cookie: String) {
        removeExpired(now: now)
        while sessions.count >= maxSessions, let oldest = sessions.values.min(by: { $0.lastUsedAt < $1.lastUsedAt }) {
            sessions.removeValue(forKey: oldest.id)
        }
        var id = Base64URL.encode(SecureRandom.bytes(Self.idBytes))
        while sessions[id] != nil { id = Base64URL.encode(SecureRandom.bytes(Self.idBytes)) }
        let secret = SecureRandom.bytes(Self.secretBytes)
        var bound = principal
        bound.source = .session(user: principal.name, session: id)
        let session = Session(
            id: id, principal: bound, address: address, createdAt: now, lastUsedAt: now, idleTimeout: idleTimeout.wholeMilliseconds,
            secretMAC: HMAC.sha256(key: macKey, message: secret))
        sessions[id] = session
        return (session, id + "." + Base64URL.encode(secret))
    }

    /// The principal a cookie's value stands for, and the session's end pushed back; or why not
    /// (the refusal never repeats the cookie).
    public mutating func principal(forCookie cookie: String, now: Int64) -> Result<Principal, AccessRefusal> {
        // An id and a secret are 16 and 43 characters; anything much longer is not a cookie of ours.
        guard cookie.utf8.count <= 128, let dot = cookie.firstIndex(of: "."),
            let secret = Base64URL.decode(cookie[cookie.index(after: dot)...]),
            secret.count == Self.secretBytes
        else { return .failure(.unauthorized("the session cookie is malformed; sign in again")) }
        let id = String(cookie[..<dot])
        guard var session = sessions[id], HMAC.constantTimeEquals(session.secretMAC, HMAC.sha256(key: macKey, message: secret)) else {
            return .failure(.unauthorized("the session has ended; sign in again"))
        }
        guard session.expiresAt > now else {
            sessions.removeValue(forKey: id)
            return .failure(.unauthorized("the session expired after \(idleTimeout.words) without use; sign in again"))
        }
        session.lastUsedAt = now
        sessions[id] = session
        return .success(session.principal)
    }

    /// Whether the session is still open (not ended, not expired), without counting as a use: for
    /// the hub's periodic check of open connections.
    public func isOpen(id: String, now: Int64) -> Bool { sessions[id].map { $0.expiresAt > now } ?? false }

    /// Sign-out, or an admin's revocation of one session. Returns the session that ended, if any.
    @discardableResult
    public mutating func remove(id: String) -> Session? { sessions.removeValue(forKey: id) }

    /// Ends every session of a user (removed from the users file, revoked by an admin); returns their ids.
    @discardableResult
    public mutating func removeAll(user: String) -> [String] {
        let ids = sessions.values.filter { $0.principal.name == user }.map(\.id)
        for id in ids { sessions.removeValue(forKey: id) }
        return ids.sorted()
    }

    /// After the users file is read again: `revise` gets each session's principal and returns what it
    /// is now (a new role or scope) or nil to end the session (the user is gone). The session's id and
    /// source are kept. Returns the ids of the sessions it ended.
    @discardableResult
    public mutating func revise(_ revise: (Principal) -> Principal?) -> [String] {
        var ended: [String] = []
        for (id, session) in sessions {
            if var principal = revise(session.principal) {
                principal.source = session.principal.source
                sessions[id]?.principal = principal
            } else {
                sessions.removeValue(forKey: id)
                ended.append(id)
            }
        }
        return ended.sorted()
    }

    /// Drops expired sessions; returns their ids.
    @discardableResult
    public mutating func removeExpired(now: Int64) -> [String] {
        let ids = sessions.values.filter { $0.expiresAt <= now }.map(\.id)
        for id in ids { sessions.removeValue(forKey: id) }
        return ids.sorted()
    }

    /// The open sessions, for an admin: most recently used first.
    public func list(now: Int64) -> [Session] {
        sessions.values.filter { $0.expiresAt > now }.sorted { ($0.lastUsedAt, $0.id) > ($1.lastUsedAt, $1.id) }
    }

    public var count: Int { sessions.count }
}
