import Synchronization

/// The dashboard's sign-in sessions as one of the server's credentials (docs/security.md): signing in
/// with a user's password (slowed after failures, per name and per address), the session cookie
/// checked on every request and handshake, signing out, and open sessions revised when the users file
/// changes (a removed user's sessions end; a changed role applies at once).
///
/// Thread: any. `signIn` runs argon2id (tens of milliseconds, 64 MiB) and must not run on the service
/// thread: the hub hands it to the sign-in queue. Every other method holds a lock for a lookup.
public final class SessionVerifier: CredentialVerifier {
    private struct State {
        var sessions: SessionTable
        var throttle = SignInThrottle()
        var directory: UserDirectory?
    }

    private let state: Mutex<State>

    public init(idleTimeout: Duration = .seconds(12 * 3_600), directory: UserDirectory? = nil) {
        state = Mutex(State(sessions: SessionTable(idleTimeout: idleTimeout), directory: directory))
    }

    /// What a sign-in came to.
    public enum SignIn: Sendable {
        /// A new session: its principal, and the cookie's value to set.
        case signedIn(Principal, cookie: String)
        /// A wrong name or password (the same answer for both).
        case refused
        /// Too many failures lately, for this name or this address: try again after the delay.
        case throttled(retryAfter: Duration)
    }

    /// Checks `password` for `user` and opens a session. Thread: the sign-in queue (argon2id is slow).
    public func signIn(user: String, password: String, address: String, now: Int64) -> SignIn {
        let (delay, directory) = state.withLock { ($0.throttle.delay(user: user, address: address, now: now), $0.directory) }
        if let delay { return .throttled(retryAfter: delay) }
        guard let directory, var principal = directory.verifyPassword(user: user, password: password) else {
            state.withLock { $0.throttle.recordFailure(user: user, address: address, now: now) }
            return .refused
        }
        return state.withLock { state in
            state.throttle.recordSuccess(user: user)
            principal.source = .session(user: principal.name, session: "")
            let (session, cookie) = state.sessions.create(for: principal, address: address, now: now)
            return .signedIn(session.principal, cookie: cookie)
        }
    }

    /// Ends the session of this cookie; its principal, or nil when there was none.
    @discardableResult
    public func signOut(cookie: String, now: Int64) -> Principal? {
        state.withLock { state in
            guard case .success(let principal) = state.sessions.principal(forCookie: cookie, now: now),
                case .session(_, let id) = principal.source
            else { return nil }
            return state.sessions.remove(id: id)?.principal
        }
    }

    /// The users file was read again: sessions of users no longer in it end, the others take their
    /// role as it is now. Returns the ids of the sessions that ended.
    @discardableResult
    public func reload(_ directory: UserDirectory) -> [String] {
        state.withLock { state in
            state.directory = directory
            return state.sessions.revise { principal in
                guard let user = directory.user(named: principal.name) else { return nil }
                var revised = principal
                revised.role = user.role
                return revised
            }
        }
    }

    /// Whether the users file names this user (for the audit: a failed sign-in records a name only when
    /// it is a user's, else it may be a password typed into the wrong field).
    public func isUser(_ name: String) -> Bool { state.withLock { $0.directory?.user(named: name) != nil } }

    public var openSessions: Int { state.withLock { $0.sessions.count } }

    public func verify(bearer token: String, nowMilliseconds: Int64) -> Result<Principal, AccessRefusal>? {
        guard token.hasPrefix(AccessControl.sessionPrefix) else { return nil }
        let cookie = String(token.dropFirst(AccessControl.sessionPrefix.count))
        return state.withLock { $0.sessions.principal(forCookie: cookie, now: nowMilliseconds) }
    }

    /// A session's connection follows the session: it ends with sign-out, idle expiry or the user's
    /// removal, and a changed role applies to new requests (the connection's own principal keeps the
    /// role it had until it reconnects).
    public func isStillValid(_ principal: Principal, nowMilliseconds: Int64) -> Bool? {
        guard case .session(_, let id) = principal.source else { return nil }
        return state.withLock { $0.sessions.isOpen(id: id, now: nowMilliseconds) }
    }
}
