internal import CLibCrypto

/// SHA-256 (FIPS 180-4) computed by libcrypto's EVP interface. Thread: any (the one-shot digest keeps no
/// shared state).
public enum SHA256 {
    /// The 32-byte digest of `message`.
    public static func digest(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = message.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { out in
                // A zero-length buffer may have no base address; libcrypto takes a non-null pointer.
                let empty: [UInt8] = [0]
                return empty.withUnsafeBufferPointer { fallback in
                    EVP_Digest(input.baseAddress ?? fallback.baseAddress!, input.count, out.baseAddress!, &length, EVP_sha256(), nil)
                }
            }
        }
        // EVP_Digest fails only when libcrypto cannot allocate its context: nothing Herald could go on from.
        precondition(status == 1, "libcrypto's EVP_Digest failed (out of memory)")
        return Array(digest.prefix(Int(length)))
    }

    /// The digest as 64 lowercase hexadecimal digits.
    public static func hexDigest(_ message: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest(message) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
