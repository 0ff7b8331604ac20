internal import CLibCrypto

/// Unpredictable bytes from libcrypto's CSPRNG (`RAND_bytes`, seeded by the kernel), for salts, keys,
/// session secrets and ids. Thread: any (libcrypto's generator is thread-safe since OpenSSL 1.1).
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress!, Int32(count)) }
        // RAND_bytes fails only when the generator cannot be seeded: no secret Herald makes would be safe.
        precondition(status == 1, "libcrypto could not produce random bytes (RAND_bytes failed)")
        return bytes
    }
}
