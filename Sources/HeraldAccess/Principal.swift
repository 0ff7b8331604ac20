/// An identity the server has verified: who, with which role, over which jobs, until when. A value:
/// the hub keeps one per connection (service thread) and checks every request against it.
public struct Principal: Sendable, Hashable {
    /// The name recorded as `startedBy`/`cancelledBy` and in the audit: a user, a key's name, a JWT's
    /// `sub`, `share:ID`, `anonymous`.
    public var name: String
    public var role: Role
    public var scope: AccessScope
    /// Wall-clock milliseconds since 1970 after which the credential is no longer good (a JWT's `exp`,
    /// a share link's expiry, a key's); nil: until revoked.
    public var expiresAtMilliseconds: Int64?
    public var source: CredentialSource

    public init(
        name: String, role: Role, scope: AccessScope = .everything, expiresAtMilliseconds: Int64? = nil,
        source: CredentialSource
    ) {
        self.name = name
        self.role = role
        self.scope = scope
        self.expiresAtMilliseconds = expiresAtMilliseconds
        self.source = source
    }

    /// The local default when no identity is configured: may do anything, as today.
    public static let anonymousAdmin = Principal(name: "anonymous", role: .admin, source: .anonymous)

    /// Whether this principal may take `action`; nil when allowed, else a `forbidden` refusal naming it.
    public func refusal(of action: AccessAction) -> AccessRefusal? {
        guard role.permits(action) else { return .forbidden(action, by: self) }
        if case .start(let kind) = action, !scope.allowsStarting(kind: kind) { return .forbidden(action, by: self) }
        return nil
    }

    /// Whether a cancel of a job started by `startedBy` (of `kind`, id `job`) is allowed.
    public func refusalToCancel(job: String, kind: String, startedBy: String?) -> AccessRefusal? {
        guard scope.contains(kind: kind, job: job) else { return .forbidden(.cancelOwn, by: self) }
        if role == .admin { return nil }
        if let refusal = refusal(of: .cancelOwn) { return refusal }
        // An operator cancels its own jobs, and jobs no person started (schedules, the local default
        // before identities were configured); other people's jobs are the admin's.
        if startedBy == nil || startedBy == name || startedBy == "anonymous" || startedBy?.hasPrefix("schedule:") == true {
            return nil
        }
        return .forbidden(.cancelAny, by: self)
    }
}
