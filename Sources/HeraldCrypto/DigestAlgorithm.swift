internal import CLibCrypto

/// The SHA-2 hash functions HMACs and signatures are computed over (libcrypto's implementations).
public enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable {
    case sha256 = "SHA-256"
    case sha384 = "SHA-384"
    case sha512 = "SHA-512"

    /// The digest's length in bytes.
    public var byteCount: Int {
        switch self {
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    /// libcrypto's static description of the hash (never freed: EVP_sha256 and its kind are built in).
    var evpDigest: OpaquePointer {
        switch self {
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        case .sha512: return EVP_sha512()
        }
    }
}
