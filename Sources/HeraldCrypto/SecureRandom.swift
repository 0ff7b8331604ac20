internal import CLibCrypto

/// Bytes from libcrypto's CSPRNG (`RAND_bytes`, seeded from the kernel): salts, API keys, anything an
/// attacker must not guess. Thread: any (OpenSSL 3's default RAND is thread-safe).
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: count out of range")
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress!, Int32(count)) }
        // RAND_bytes fails only when the generator cannot be seeded: going on would hand out guessable
        // secrets, so stopping is the only safe answer.
        precondition(status == 1, "libcrypto's RAND_bytes failed: no secure randomness")
        return bytes
    }
}
