import HeraldCrypto

/// One shared secret that grants a fixed principal: `--token` (the control token, an admin) and
/// `--worker-token` (every worker). Compared in constant time, so it cannot be guessed byte by byte.
public struct FixedTokenVerifier: CredentialVerifier {
    private let digest: [UInt8]
    private let key: [UInt8]
    public let principal: Principal

    public init(token: String, principal: Principal) {
        // Comparing HMACs under a per-process key keeps the comparison's length fixed whatever the
        // candidate's length, and keeps the token itself out of long-lived memory beside it.
        key = SecureRandom.bytes(32)
        digest = HMAC.sha256(key: key, message: Array(token.utf8))
        self.principal = principal
    }

    public func verify(bearer token: String, nowMilliseconds: Int64) -> Result<Principal, AccessRefusal>? {
        HMAC.constantTimeEquals(HMAC.sha256(key: key, message: Array(token.utf8)), digest) ? .success(principal) : nil
    }

    public func isStillValid(_ principal: Principal, nowMilliseconds: Int64) -> Bool? {
        principal.source == self.principal.source ? true : nil
    }
}
