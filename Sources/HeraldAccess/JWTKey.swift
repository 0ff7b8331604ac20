import HeraldCrypto

/// One key a `JWTKeyring` verifies tokens with: an HS secret or a public key, with the `kid` that
/// names it (from a JWKS; none for a `--jwt-key` file) and, when its JWK said so, the one algorithm
/// it is for. The key decides which algorithms are allowed: an HS secret verifies only HS256/384/512,
/// an RSA key only RS* and PS*, an EC key only the ES* of its curve. So a token cannot make an RSA
/// public key serve as an HMAC secret (algorithm confusion), and `alg: none` matches no key at all.
public struct JWTKey: Sendable, CustomStringConvertible {
    public enum Material: Sendable {
        /// A shared secret for the HS algorithms: the raw bytes.
        case secret([UInt8])
        case publicKey(PublicKey)
    }

    /// The fewest bytes an HS secret may have: RFC 7518 (3.2) wants a key at least as long as the
    /// hash, and HS256's is 32 bytes.
    public static let minimumSecretBytes = 32

    public let material: Material
    public let id: String?
    /// The JWK's `alg` when it named one: then only that algorithm is allowed.
    public let algorithm: JWTAlgorithm?

    public init(_ material: Material, id: String? = nil, algorithm: JWTAlgorithm? = nil) {
        self.material = material
        self.id = id
        self.algorithm = algorithm
    }

    /// What kind of key this is, in a refusal: "an HS secret", "an RSA key", "an EC P-256 key".
    public var description: String {
        switch material {
        case .secret: return "an HS secret"
        case .publicKey(let key):
            switch key.kind {
            case .rsa: return "an RSA key"
            case .ec(let curve): return "an EC \(curve.rawValue) key"
            }
        }
    }

    /// Whether a token signed with `algorithm` may be verified by this key.
    public func allows(_ algorithm: JWTAlgorithm) -> Bool {
        if let only = self.algorithm, only != algorithm { return false }
        switch material {
        case .secret: return algorithm.hmacDigest != nil
        case .publicKey(let key):
            guard let scheme = algorithm.signatureScheme else { return false }
            return key.fits(scheme)
        }
    }

    /// Whether `signature` is `algorithm`'s signature of `message` by this key (false for an
    /// algorithm the key does not allow). HMACs are compared in constant time.
    public func verifies(_ signature: [UInt8], of message: [UInt8], algorithm: JWTAlgorithm) -> Bool {
        guard allows(algorithm) else { return false }
        switch material {
        case .secret(let secret):
            guard let digest = algorithm.hmacDigest else { return false }
            return HMAC.verify(digest, key: secret, message: message, mac: signature)
        case .publicKey(let key):
            guard let scheme = algorithm.signatureScheme else { return false }
            return key.verify(signature, of: message, scheme: scheme)
        }
    }
}
