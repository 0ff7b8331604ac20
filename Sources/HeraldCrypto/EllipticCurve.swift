/// The elliptic curves whose keys Herald verifies signatures with (NIST P-256 and P-384: what JOSE's
/// ES256 and ES384 use).
public enum EllipticCurve: String, Sendable, Hashable, CaseIterable {
    case p256 = "P-256"
    case p384 = "P-384"

    /// The length in bytes of one coordinate of a point, and of each of a raw signature's r and s.
    public var coordinateByteCount: Int {
        switch self {
        case .p256: return 32
        case .p384: return 48
        }
    }

    /// The hash ECDSA is paired with on this curve in JOSE (ES256 on P-256, ES384 on P-384).
    public var digest: DigestAlgorithm {
        switch self {
        case .p256: return .sha256
        case .p384: return .sha384
        }
    }

    /// libcrypto's name for the curve's group.
    var groupName: String {
        switch self {
        case .p256: return "prime256v1"
        case .p384: return "secp384r1"
        }
    }

    /// The curve libcrypto names `name` (a key's group), or nil for one Herald does not verify with.
    init?(groupName name: String) {
        switch name {
        case "prime256v1", "P-256", "secp256r1": self = .p256
        case "secp384r1", "P-384": self = .p384
        default: return nil
        }
    }
}
