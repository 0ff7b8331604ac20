/// A verified token's claims checked and turned into a `Principal`: the times (`exp` required, `nbf`
/// and `iat` when present, each with `leewayMilliseconds` for clocks that disagree a little), the
/// audience and issuer when the keyring names them, then `sub`, `role`, `kinds` and `jobs`.
struct JWTClaims {
    /// The latest NumericDate accepted (the end of the year 9999), so that milliseconds fit 64 bits.
    static let latestSeconds = 253_402_300_799.0
    /// The longest `sub`: it becomes the name in the audit and on jobs.
    static let maximumSubjectBytes = 256

    let claims: [String: JWTJSONValue]

    func principal(
        nowMilliseconds now: Int64, leewayMilliseconds leeway: Int64, audience: String?, issuer: String?
    ) throws(AccessRefusal) -> Principal {
        guard let expires = try milliseconds("exp") else { throw .unauthorized("token has no exp (expiry)") }
        guard now < expires + leeway else { throw .unauthorized("token expired") }
        if let notBefore = try milliseconds("nbf"), now + leeway < notBefore { throw .unauthorized("token not valid yet (nbf)") }
        if let issuedAt = try milliseconds("iat"), now + leeway < issuedAt { throw .unauthorized("token issued in the future (iat)") }
        if let issuer { try checkIssuer(issuer) }
        if let audience { try checkAudience(audience) }
        let subject = try self.subject()
        return Principal(
            name: subject, role: try role(), scope: AccessScope(kinds: try kinds(), jobs: try jobs()), expiresAtMilliseconds: expires,
            source: .jwt(subject: subject))
    }

    /// A NumericDate claim in milliseconds; nil when absent.
    private func milliseconds(_ name: String) throws(AccessRefusal) -> Int64? {
        guard let value = claims[name] else { return nil }
        guard let seconds = value.secondsValue, seconds.isFinite, seconds >= 0, seconds <= Self.latestSeconds else {
            throw .unauthorized("token's \(name) is not a number of seconds since 1970")
        }
        return Int64((seconds * 1000).rounded(.down))
    }

    private func checkIssuer(_ issuer: String) throws(AccessRefusal) {
        guard let value = claims["iss"] else { throw .unauthorized("token has no iss (issuer)") }
        guard value.stringValue == issuer else { throw .unauthorized("token's issuer (iss) is not the one configured") }
    }

    /// `aud` is one string or an array of strings (RFC 7519 4.1.3); the configured audience must be
    /// among them.
    private func checkAudience(_ audience: String) throws(AccessRefusal) {
        let audiences: [String]
        switch claims["aud"] {
        case nil: throw .unauthorized("token has no aud (audience)")
        case .string(let value)?: audiences = [value]
        case .array(let values)?:
            audiences = values.compactMap(\.stringValue)
            guard audiences.count == values.count else { throw .unauthorized("token's aud is not a string or an array of strings") }
        default: throw .unauthorized("token's aud is not a string or an array of strings")
        }
        guard audiences.contains(audience) else { throw .unauthorized("token's audience (aud) is not the one configured") }
    }

    private func subject() throws(AccessRefusal) -> String {
        guard let value = claims["sub"] else { throw .unauthorized("token has no sub (subject)") }
        guard let subject = value.stringValue, !subject.isEmpty else { throw .unauthorized("token's sub is not a non-empty string") }
        guard subject.utf8.count <= Self.maximumSubjectBytes,
            !subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .unauthorized("token's sub is longer than \(Self.maximumSubjectBytes) bytes or holds control characters") }
        return subject
    }

    /// `role`: viewer when absent; a name Herald does not know is refused rather than guessed.
    private func role() throws(AccessRefusal) -> Role {
        guard let value = claims["role"] else { return .viewer }
        guard let name = value.stringValue else { throw .unauthorized("token's role is not a string") }
        guard let role = Role(rawValue: name) else {
            throw .unauthorized("unknown role \(JSONWebToken.quoted(name)) (viewer, operator, admin or worker)")
        }
        return role
    }

    /// `kinds`: the job kinds the token reaches; nil (every kind) when absent.
    private func kinds() throws(AccessRefusal) -> Set<String>? {
        guard let value = claims["kinds"] else { return nil }
        guard case .array(let items) = value else { throw .unauthorized("token's kinds is not an array of strings") }
        let kinds = items.compactMap(\.stringValue)
        guard kinds.count == items.count else { throw .unauthorized("token's kinds is not an array of strings") }
        return Set(kinds)
    }

    /// `jobs`: the job ids the token reaches, as strings or integers; nil (every job) when absent.
    private func jobs() throws(AccessRefusal) -> Set<String>? {
        guard let value = claims["jobs"] else { return nil }
        let invalid = AccessRefusal.unauthorized("token's jobs is not an array of job ids (strings or integers)")
        guard case .array(let items) = value else { throw invalid }
        var jobs = Set<String>()
        for item in items {
            switch item {
            case .string(let id) where !id.isEmpty: jobs.insert(id)
            case .integer(let id) where id >= 0: jobs.insert(String(id))
            default: throw invalid
            }
        }
        return jobs
    }
}
