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
    /// An anonymous principal is refused as `unauthorized`: showing a credential may change the answer.
    public func refusal(of action: AccessAction) -> AccessRefusal? {
        guard role.permits(action) else {
            if source == .anonymous { return .unauthorized("this server needs a token or a sign-in to \(action.description)") }
            return .forbidden(action, by: self)
        }
        if case .start(let kind) = action, !scope.allowsStarting(kind: kind) { return .forbidden(action, by: self) }
        return nil
    }

    /// What only a principal that sees every job may do (the schedules, the workers, the news, the
    /// history's other jobs): nil when its scope is unlimited, else a `forbidden` naming `what`.
    public func refusalOutsideScope(of what: String) -> AccessRefusal? {
        scope.isUnlimited ? nil : AccessRefusal(.forbidden, "\(name) may only see the jobs it was given; it may not \(what)")
    }

    /// Whether a cancel of a job started by `startedBy` (of `kind`, id `job`) is allowed.
    public func refusalToCancel(job: String, kind: String, startedBy: String?) -> AccessRefusal? {
        guard scope.contains(kind: kind, job: job) else { return .forbidden(.cancelOwn, by: self) }
        if role == .admin { return nil }
        if let refusal = refusal(of: .cancelOwn) { return refusal }
        if source == .anonymous { return nil }
        // An operator cancels its own jobs, and jobs no person started (schedules, the local default
        // before identities were configured); other people's jobs are the admin's.
        if startedBy == nil || startedBy == name || startedBy == "anonymous" || startedBy?.hasPrefix("schedule:") == true {
            return nil
        }
        return .forbidden(.cancelAny, by: self)
    }
}
