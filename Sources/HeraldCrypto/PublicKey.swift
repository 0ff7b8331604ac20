internal import CLibCrypto

/// A public key that libcrypto verifies signatures with: RSA of 2048 bits or more, or EC on P-256 or
/// P-384. Loaded from PEM (`PublicKey+PEM.swift`) or from its parameters, as a JWK gives them
/// (`PublicKey+Parameters.swift`); every key is checked by libcrypto (`EVP_PKEY_public_check`) before
/// it is accepted. No libcrypto type leaves this module.
///
/// Thread: any, concurrently. The key is never changed after `init`, and OpenSSL 3 allows an
/// EVP_PKEY to be shared by threads that only read it; each `verify` makes its own contexts.
public final class PublicKey: @unchecked Sendable {  // unchecked: holds an immutable EVP_PKEY, see above
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        case rsa(bits: Int)
        case ec(EllipticCurve)

        public var description: String {
            switch self {
            case .rsa(let bits): return "RSA (\(bits) bits)"
            case .ec(let curve): return "EC \(curve.rawValue)"
            }
        }
    }

    /// The fewest bits an RSA key may have: RFC 7518 (3.3) requires 2048.
    public static let minimumRSABits = 2048

    public let kind: Kind
    /// The EVP_PKEY, owned: freed in deinit.
    let key: OpaquePointer

    /// Takes ownership of `key` (freed here when it is refused, else in deinit) after checking that it
    /// is a kind Herald verifies with and that libcrypto finds its parameters valid.
    init(adopting key: OpaquePointer) throws(PublicKeyError) {
        // Whatever libcrypto queued while the key was read and checked is dropped, success or not: the
        // queue is the thread's, and libssl on the same thread (SSL_get_error) would take a stale
        // entry for its own error.
        defer { ERR_clear_error() }
        do {
            kind = try Self.kind(of: key)
            try Self.check(key)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` is a valid signature of `message` by this key under `scheme`. False too when
    /// the scheme does not fit the key (a PSS signature for an EC key, ES384 for a P-256 key).
    public func verify(_ signature: [UInt8], of message: [UInt8], scheme: SignatureScheme) -> Bool {
        guard fits(scheme), !signature.isEmpty else { return false }
        var encoded = signature
        if case .ecdsaRaw = scheme, case .ec(let curve) = kind {
            guard let der = Self.derSignature(raw: signature, coordinateByteCount: curve.coordinateByteCount) else { return false }
            encoded = der
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            // A failed verification leaves its reason on this thread's error queue, which libssl on the
            // same thread would take for its own (see init).
            ERR_clear_error()
        }
        // The EVP_PKEY_CTX is the digest context's own (freed with it).
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit(context, &keyContext, scheme.digest.evpDigest, nil, key) == 1 else { return false }
        if case .rsaPSS = scheme {
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, herald_rsa_pss_saltlen_digest()) == 1
            else { return false }
        }
        let zero: [UInt8] = [0]
        return encoded.withUnsafeBufferPointer { signatureBytes in
            message.withUnsafeBufferPointer { messageBytes in
                zero.withUnsafeBufferPointer { fallback in
                    EVP_DigestVerify(
                        context, signatureBytes.baseAddress, signatureBytes.count, messageBytes.baseAddress ?? fallback.baseAddress,
                        messageBytes.count) == 1
                }
            }
        }
    }

    /// Whether signatures under `scheme` can come from this key: RSA for PKCS#1 v1.5 and PSS; EC for
    /// ECDSA over the hash its curve is paired with.
    public func fits(_ scheme: SignatureScheme) -> Bool {
        switch (kind, scheme) {
        case (.rsa, .rsaPKCS1v15), (.rsa, .rsaPSS): return true
        case (.ec(let curve), .ecdsaRaw(let digest)): return curve.digest == digest
        default: return false
        }
    }

    private static func kind(of key: OpaquePointer) throws(PublicKeyError) -> Kind {
        let type = EVP_PKEY_get_base_id(key)
        if type == herald_evp_pkey_rsa() {
            let bits = Int(EVP_PKEY_get_bits(key))
            guard bits >= minimumRSABits else {
                throw PublicKeyError("an RSA key of \(bits) bits is too short: at least \(minimumRSABits) are needed")
            }
            return .rsa(bits: bits)
        }
        if type == herald_evp_pkey_ec() {
            var name = [CChar](repeating: 0, count: 80)
            var length = 0
            guard EVP_PKEY_get_utf8_string_param(key, herald_param_group_name(), &name, name.count, &length) == 1 else {
                throw PublicKeyError("an EC key without a named curve is not supported (P-256 or P-384)")
            }
            let groupName = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let curve = EllipticCurve(groupName: groupName) else {
                throw PublicKeyError("EC curve \(groupName) is not supported (P-256 or P-384)")
            }
            return .ec(curve)
        }
        let name = OBJ_nid2sn(type).map { String(cString: $0) } ?? "\(type)"
        throw PublicKeyError("a key of type \(name) is not supported (RSA or EC P-256/P-384)")
    }

    /// libcrypto's check of a public key (an EC point on its curve and in its group; an RSA modulus
    /// and exponent that make sense).
    private static func check(_ key: OpaquePointer) throws(PublicKeyError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw PublicKeyError("out of memory") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else {
            throw PublicKeyError("the key is not valid (\(libcryptoReason()))")
        }
    }

    /// A JOSE ECDSA signature (r‖s, each `coordinateByteCount` bytes) as the DER that libcrypto
    /// verifies, encoded by libcrypto; nil when its length is not the curve's.
    private static func derSignature(raw: [UInt8], coordinateByteCount count: Int) -> [UInt8]? {
        guard raw.count == 2 * count, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let (r, s) = raw.withUnsafeBufferPointer { bytes in
            (BN_bin2bn(bytes.baseAddress, Int32(count), nil), BN_bin2bn(bytes.baseAddress! + count, Int32(count), nil))
        }
        // ECDSA_SIG_set0 takes r and s only when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }

    /// The reason libcrypto gives for its latest error on this thread (the queue is cleared by callers).
    static func libcryptoReason() -> String {
        let code = ERR_peek_last_error()
        guard code != 0, let reason = ERR_reason_error_string(code) else { return "libcrypto gives no reason" }
        return String(cString: reason)
    }
}
