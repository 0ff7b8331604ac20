/// One kind of bearer credential (API keys, JWTs, share links, a fixed token): recognises its own
/// tokens and verifies them. `AccessControl` asks each verifier in turn; a verifier answers nil for a
/// token that is not of its kind, so the next one can try.
///
/// Thread: any (the service thread verifies handshakes and `auth` messages; the HTTP thread of a
/// reload may build new verifiers meanwhile). Implementations are immutable values or guard their
/// own state.
public protocol CredentialVerifier: Sendable {
    /// The principal `token` proves at `nowMilliseconds` (wall clock, since 1970), a refusal when the
    /// token is this verifier's but not good (expired, revoked, forged), or nil when it is not this
    /// verifier's kind of token.
    func verify(bearer token: String, nowMilliseconds: Int64) -> Result<Principal, AccessRefusal>?

    /// Whether a principal this verifier made earlier is still good (not revoked, not expired); nil
    /// when the principal is not this verifier's. Called for every open connection after a reload or
    /// revocation, so it must be cheap: a lookup, never a signature check.
    func isStillValid(_ principal: Principal, nowMilliseconds: Int64) -> Bool?
}

extension CredentialVerifier {
    public func isStillValid(_ principal: Principal, nowMilliseconds: Int64) -> Bool? { nil }
}
