/// The base64url encoding of RFC 4648 (section 5) without padding, as JOSE uses it (RFC 7515 section
/// 2). Decoding is strict: only the URL-safe alphabet, no `=`, no whitespace, and the unused low bits
/// of the last character must be zero, so every byte string has exactly one accepted spelling.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each ASCII byte's 6-bit value, or 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// The bytes `text` encodes, or nil when it is not strict unpadded base64url.
    public static func decode<Text: Collection>(_ text: Text) -> [UInt8]? where Text.Element == UInt8 {
        // A single character left over holds only 6 bits: never a whole byte.
        guard text.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits are padding and must be zero (RFC 4648 section 3.5: canonical encoding).
        guard accumulator == 0 else { return nil }
        return output
    }

    /// As `decode`, for text (a cookie, a token's part).
    public static func decode(_ text: Substring) -> [UInt8]? { decode(text.utf8) }

    /// `bytes` in the URL-safe alphabet, without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var group: UInt32 = 0
            for byte in chunk { group = group << 8 | UInt32(byte) }
            group <<= UInt32(8 * (3 - chunk.count))
            for position in 0...chunk.count { output.append(alphabet[Int((group >> UInt32(18 - 6 * position)) & 0x3F)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
