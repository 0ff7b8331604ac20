internal import CLibCrypto

/// Keyed message authentication codes (RFC 2104) computed by OpenSSL's libcrypto: Herald writes no
/// cryptography of its own. Swift values in and out; no C type leaves this module.
/// Thread: any (libcrypto's one-shot HMAC keeps no shared state).
public enum HMAC {
    /// HMAC-SHA256 of `message` under `key`: 32 bytes. A key of any length is accepted (longer than
    /// the block size, it is hashed first, as RFC 2104 says).
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] { authenticate(.sha256, key: key, message: message) }

    /// HMAC-SHA384: 48 bytes.
    public static func sha384(key: [UInt8], message: [UInt8]) -> [UInt8] { authenticate(.sha384, key: key, message: message) }

    /// HMAC-SHA512: 64 bytes.
    public static func sha512(key: [UInt8], message: [UInt8]) -> [UInt8] { authenticate(.sha512, key: key, message: message) }

    /// The HMAC of `message` under `key` over `digest`: `digest.byteCount` bytes.
    public static func authenticate(_ digest: DigestAlgorithm, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let keyLength = Int32(key.count)
        let produced = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                output.withUnsafeMutableBufferPointer { out in
                    // A zero-length buffer may have no base address; libcrypto takes a non-null pointer.
                    let empty: [UInt8] = [0]
                    return empty.withUnsafeBufferPointer { fallback in
                        CLibCrypto.HMAC(
                            digest.evpDigest, UnsafeRawPointer(keyBytes.baseAddress ?? fallback.baseAddress!), keyLength,
                            messageBytes.baseAddress ?? fallback.baseAddress!, messageBytes.count, out.baseAddress!, &length)
                    }
                }
            }
        }
        // HMAC fails only when libcrypto cannot allocate its context: nothing Herald could go on from.
        precondition(produced != nil, "libcrypto's HMAC failed (out of memory)")
        return Array(output.prefix(Int(length)))
    }

    /// Whether `mac` is the HMAC of `message` under `key`, compared in constant time.
    public static func verify(_ digest: DigestAlgorithm, key: [UInt8], message: [UInt8], mac: [UInt8]) -> Bool {
        constantTimeEquals(authenticate(digest, key: key, message: message), mac)
    }

    /// Compares two MACs in time that depends on their length only (libcrypto's `CRYPTO_memcmp`),
    /// so a verifier leaks nothing of where a forged MAC first differs.
    public static func constantTimeEquals(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        guard !left.isEmpty else { return true }
        return left.withUnsafeBytes { a in right.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
    }
}
