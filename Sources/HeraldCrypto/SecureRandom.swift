internal import CLibCrypto

/// Unpredictable bytes from libcrypto's `RAND_bytes` (OpenSSL's DRBG, seeded by the kernel): for
/// session secrets, link ids and signing keys. Thread: any (OpenSSL 3's default DRBG is thread-safe).
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        let status = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress!, Int32($0.count)) }
        // RAND_bytes fails only when the DRBG cannot be seeded: no secret may be made from what it left.
        precondition(status == 1, "libcrypto's RAND_bytes failed: the random generator is not seeded")
        return out
    }
}
