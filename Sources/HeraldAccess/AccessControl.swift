import HeraldSupport
import Synchronization

/// Turns what a request presents into a `Principal`, or a refusal. The one place that knows which
/// identities this server takes (`AccessSettings`) and holds their verifiers; the hub asks it at every
/// handshake, HTTP request and `auth` message, and again for open connections after a reload or a
/// revocation (`revision` changed) so they follow their credentials.
///
/// Thread: any. The service thread authenticates; a reload (SIGHUP, a changed users file) or a
/// revocation replaces verifiers from another thread. Both hold `state`'s lock only to read or swap
/// the array of verifiers: verifying happens outside it, so the service thread never waits on a
/// reload's file reading or hashing.
public final class AccessControl: Sendable {
    public let settings: AccessSettings
    private let state: Mutex<[any CredentialVerifier]>
    /// Bumped by every change of verifiers; open connections are checked again when it moved.
    private let changes = Atomic<Int>(0)
    /// The wall clock in milliseconds since 1970 (injected by tests).
    private let clock: @Sendable () -> Int64

    public init(
        settings: AccessSettings, verifiers: [any CredentialVerifier] = [], clock: @escaping @Sendable () -> Int64 = { WallClock.millis() }
    ) {
        self.settings = settings
        self.state = Mutex(Self.withFixedTokens(settings) + verifiers)
        self.clock = clock
    }

    /// Wall-clock milliseconds now, as this access control sees them.
    public var nowMilliseconds: Int64 { clock() }

    /// Increases whenever credentials were reloaded or revoked.
    public var revision: Int { changes.load(ordering: .acquiring) }

    /// Replaces the verifiers made from files (users file, JWT keys, share links) after a reload or a
    /// revocation; the fixed tokens of the settings stay.
    public func replaceVerifiers(_ verifiers: [any CredentialVerifier]) {
        state.withLock { $0 = Self.withFixedTokens(settings) + verifiers }
        changes.add(1, ordering: .releasing)
    }

    /// Says that something behind an existing verifier changed (a share link or session revoked in
    /// place): open connections are checked again.
    public func noteRevocation() { changes.add(1, ordering: .releasing) }

    /// Who `credentials` prove to be. A bearer token that no verifier accepts is refused, even where
    /// anonymous watching is allowed: a client that sent a credential wants to know it is wrong.
    public func authenticate(_ credentials: PresentedCredentials) -> Result<Principal, AccessRefusal> {
        let now = clock()
        if let token = credentials.bearer, !token.isEmpty {
            guard token.utf8.count <= Self.maxTokenBytes else {
                return .failure(.unauthorized("the token is larger than \(Self.maxTokenBytes / 1024) KiB"))
            }
            for verifier in state.withLock({ $0 }) {
                if let result = verifier.verify(bearer: token, nowMilliseconds: now) { return result }
            }
            return .failure(.unauthorized("the token is not valid on this server"))
        }
        if let cookie = credentials.sessionCookie, !cookie.isEmpty {
            for verifier in state.withLock({ $0 }) {
                if let result = verifier.verify(bearer: Self.sessionPrefix + cookie, nowMilliseconds: now) {
                    return result
                }
            }
        }
        if let proxy = settings.trustedProxy, let user = credentials.proxyUser, !user.isEmpty,
            proxy.addresses.contains(where: { $0.contains(credentials.peerAddress) })
        {
            return .success(Principal(name: user, role: proxy.role, source: .proxy(user: user)))
        }
        return anonymous()
    }

    /// The principal of a request that showed nothing: everything on a server with no identities and
    /// no control token (the local default), watching with a control token only or `--public-view`,
    /// and nothing otherwise.
    public func anonymous() -> Result<Principal, AccessRefusal> {
        if !settings.identitiesRequired {
            return .success(
                settings.controlToken == nil ? .anonymousAdmin : Principal(name: "anonymous", role: .viewer, source: .anonymous))
        }
        if settings.publicView { return .success(Principal(name: "anonymous", role: .viewer, source: .anonymous)) }
        return .failure(.unauthorized("this server needs you to sign in or present a token"))
    }

    /// Whether an open connection's principal is still good: not expired, and not revoked (each
    /// verifier knows its own; a principal no verifier claims any longer, such as a key whose users
    /// file entry is gone, is not).
    public func isStillValid(_ principal: Principal) -> Bool {
        let now = clock()
        if let expiry = principal.expiresAtMilliseconds, now >= expiry { return false }
        switch principal.source {
        case .anonymous: return (try? anonymous().get()) != nil
        case .proxy: return settings.trustedProxy != nil
        default: break
        }
        for verifier in state.withLock({ $0 }) {
            if let valid = verifier.isStillValid(principal, nowMilliseconds: now) { return valid }
        }
        // JWTs stay good until `exp`: nothing on the server revokes one but a changed key.
        if case .jwt = principal.source { return true }
        return false
    }

    /// Tokens larger than this are refused before any parsing.
    public static let maxTokenBytes = 8 * 1024
    /// A session cookie is verified as a bearer token with this prefix, so the session verifier
    /// recognises it and no other verifier mistakes a cookie for a key.
    public static let sessionPrefix = "session:"

    private static func withFixedTokens(_ settings: AccessSettings) -> [any CredentialVerifier] {
        var verifiers: [any CredentialVerifier] = []
        if let token = settings.controlToken {
            verifiers.append(FixedTokenVerifier(token: token, principal: Principal(name: "token", role: .admin, source: .controlToken)))
        }
        if let token = settings.workerToken {
            verifiers.append(FixedTokenVerifier(token: token, principal: Principal(name: "worker", role: .worker, source: .workerToken)))
        }
        return verifiers
    }
}
