/// The keys that verify the JWTs minted by the operator's own application, and what a token must say
/// to be accepted (`--jwt-key`, `--jwks`, `--jwt-audience`, `--jwt-issuer`; docs/security.md). A
/// token becomes a `Principal` or an `unauthorized` refusal whose message names the problem and never
/// repeats the token. The time is passed in, so the same token gives the same answer at the same time.
///
/// Thread: any, concurrently (immutable; libcrypto's keys are only read).
public struct JWTKeyring: Sendable {
    /// How far clocks may disagree: `exp` is honoured until 30 s after it, and `nbf`/`iat` from 30 s
    /// before them.
    public static let leewayMilliseconds: Int64 = 30_000

    public let keys: [JWTKey]
    /// When set, a token's `aud` must be (or include) this.
    public let audience: String?
    /// When set, a token's `iss` must be this.
    public let issuer: String?

    public init(keys: [JWTKey], audience: String? = nil, issuer: String? = nil) {
        self.keys = keys
        self.audience = audience
        self.issuer = issuer
    }

    /// The principal `token` (compact JWS) proves at `nowMilliseconds` (wall clock, since 1970).
    public func principal(for token: String, nowMilliseconds: Int64) throws(AccessRefusal) -> Principal {
        let jwt = try JSONWebToken(compact: token)
        guard let algorithm = JWTAlgorithm(rawValue: jwt.algorithm) else {
            if jwt.algorithm.lowercased() == "none" { throw .unauthorized("algorithm none is never accepted") }
            throw .unauthorized("algorithm \(JSONWebToken.quoted(jwt.algorithm)) is not supported")
        }
        let candidates = try self.candidates(for: jwt)
        let allowed = candidates.filter { $0.allows(algorithm) }
        guard !allowed.isEmpty else {
            let kinds = Set(candidates.map(\.description))
            if kinds.count == 1, let kind = kinds.first { throw .unauthorized("algorithm \(algorithm.rawValue) not allowed for \(kind)") }
            throw .unauthorized("algorithm \(algorithm.rawValue) not allowed for any of the configured keys")
        }
        guard allowed.contains(where: { $0.verifies(jwt.signature, of: jwt.signingInput, algorithm: algorithm) }) else {
            throw .unauthorized("signature does not verify")
        }
        return try JWTClaims(claims: jwt.claims()).principal(
            nowMilliseconds: nowMilliseconds, leewayMilliseconds: Self.leewayMilliseconds, audience: audience, issuer: issuer)
    }

    /// The keys that may have signed `jwt`: those its `kid` names; with a `kid` no key has, the keys
    /// without an id (a `--jwt-key` file's); without a `kid`, every key.
    private func candidates(for jwt: JSONWebToken) throws(AccessRefusal) -> [JWTKey] {
        guard !keys.isEmpty else { throw .unauthorized("no JWT keys are configured") }
        guard let keyID = jwt.keyID else { return keys }
        let named = keys.filter { $0.id == keyID }
        if !named.isEmpty { return named }
        let unnamed = keys.filter { $0.id == nil }
        guard !unnamed.isEmpty else { throw .unauthorized("unknown key id (kid) \(JSONWebToken.quoted(keyID))") }
        return unnamed
    }
}
