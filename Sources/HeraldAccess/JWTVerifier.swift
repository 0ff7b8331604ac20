/// JWTs minted by the operator's application (`--jwt-key`, `--jwks`; docs/security.md) as one of the
/// server's credentials. A bearer token is taken for a JWT when it has the compact form (three
/// base64url parts, the first a JSON object: `eyJ…`); anything else is left to the other verifiers.
/// Nothing on the server revokes a JWT: it is good until its `exp` (the hub closes its connections
/// then), or until the keys it was signed with are no longer configured.
public struct JWTVerifier: CredentialVerifier {
    public let keyring: JWTKeyring

    public init(keyring: JWTKeyring) { self.keyring = keyring }

    public func verify(bearer token: String, nowMilliseconds: Int64) -> Result<Principal, AccessRefusal>? {
        guard Self.looksLikeJWT(token) else { return nil }
        do { return .success(try keyring.principal(for: token, nowMilliseconds: nowMilliseconds)) } catch { return .failure(error) }
    }

    public func isStillValid(_ principal: Principal, nowMilliseconds: Int64) -> Bool? {
        guard case .jwt = principal.source else { return nil }
        return principal.expiresAtMilliseconds.map { nowMilliseconds < $0 } ?? true
    }

    static func looksLikeJWT(_ token: String) -> Bool {
        token.hasPrefix("eyJ") && token.utf8.lazy.filter { $0 == UInt8(ascii: ".") }.count == 2
    }
}
