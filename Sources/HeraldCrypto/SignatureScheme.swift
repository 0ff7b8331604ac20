/// How a signature is made, for `PublicKey.verify`: the padding or the encoding, and the hash.
public enum SignatureScheme: Sendable, Hashable {
    /// RSASSA-PKCS1-v1_5 (JOSE's RS256, RS384, RS512).
    case rsaPKCS1v15(DigestAlgorithm)
    /// RSASSA-PSS with MGF1 over the same hash and a salt as long as the hash, as RFC 7518 (3.5)
    /// requires (JOSE's PS256, PS384, PS512).
    case rsaPSS(DigestAlgorithm)
    /// ECDSA whose signature is the raw r‖s of RFC 7518 (3.4), each as long as a coordinate of the
    /// curve, rather than DER (JOSE's ES256 and ES384).
    case ecdsaRaw(DigestAlgorithm)

    public var digest: DigestAlgorithm {
        switch self {
        case .rsaPKCS1v15(let digest), .rsaPSS(let digest), .ecdsaRaw(let digest): return digest
        }
    }
}
