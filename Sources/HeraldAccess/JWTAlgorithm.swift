import HeraldCrypto

/// The JWS algorithms (RFC 7518 section 3) Herald verifies. Which of them a token may use is decided
/// by the key that verifies it (`JWTKey.allows`), never by the token's own `alg`; `none` is not
/// among them.
public enum JWTAlgorithm: String, Sendable, Hashable, CaseIterable {
    case hs256 = "HS256"
    case hs384 = "HS384"
    case hs512 = "HS512"
    case rs256 = "RS256"
    case rs384 = "RS384"
    case rs512 = "RS512"
    case ps256 = "PS256"
    case ps384 = "PS384"
    case ps512 = "PS512"
    case es256 = "ES256"
    case es384 = "ES384"

    /// The HMAC's hash for the HS algorithms; nil for the public-key ones.
    public var hmacDigest: DigestAlgorithm? {
        switch self {
        case .hs256: return .sha256
        case .hs384: return .sha384
        case .hs512: return .sha512
        default: return nil
        }
    }

    /// The signature scheme of the public-key algorithms; nil for the HS ones.
    public var signatureScheme: SignatureScheme? {
        switch self {
        case .hs256, .hs384, .hs512: return nil
        case .rs256: return .rsaPKCS1v15(.sha256)
        case .rs384: return .rsaPKCS1v15(.sha384)
        case .rs512: return .rsaPKCS1v15(.sha512)
        case .ps256: return .rsaPSS(.sha256)
        case .ps384: return .rsaPSS(.sha384)
        case .ps512: return .rsaPSS(.sha512)
        case .es256: return .ecdsaRaw(.sha256)
        case .es384: return .ecdsaRaw(.sha384)
        }
    }
}
