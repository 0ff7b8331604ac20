/// The users file's API keys as one of the server's credentials (docs/security.md): a bearer token
/// that starts with `hk_` is a key's. Passwords are not bearer credentials: they open a session
/// (`SessionVerifier.signIn`). A new verifier is made for each reload of the file; a principal of a
/// key that is gone (revoked, removed, expired) is no longer valid.
public struct UsersVerifier: CredentialVerifier {
    public let directory: UserDirectory

    public init(directory: UserDirectory) { self.directory = directory }

    public func verify(bearer token: String, nowMilliseconds: Int64) -> Result<Principal, AccessRefusal>? {
        guard token.hasPrefix(APIKey.prefix) else { return nil }
        return directory.principal(forKey: token, now: nowMilliseconds)
    }

    public func isStillValid(_ principal: Principal, nowMilliseconds: Int64) -> Bool? {
        guard case .key(let name) = principal.source else { return nil }
        return directory.hasKey(named: name)
    }
}
