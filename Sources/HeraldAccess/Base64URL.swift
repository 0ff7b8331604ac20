import Foundation

/// Base64 with the URL alphabet (`-`, `_`) and no padding (RFC 4648 §5): how session cookies and
/// share-link tokens carry bytes in a header or a query string without escaping. Thread: any.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// The bytes, or nil for text that is not unpadded base64url (padding, `+`, `/`, whitespace and
    /// a length no encoding makes are refused, so one value has exactly one spelling).
    static func decode(_ text: Substring) -> [UInt8]? {
        guard text.utf8.count % 4 != 1 else { return nil }
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.unicodeScalars.append(UnicodeScalar(byte))
            case UInt8(ascii: "-"): standard.append("+")
            case UInt8(ascii: "_"): standard.append("/")
            default: return nil
            }
        }
        while standard.utf8.count % 4 != 0 { standard.append("=") }
        guard let data = Data(base64Encoded: standard) else { return nil }
        let bytes = [UInt8](data)
        // Unused low bits of the last character must be zero, else two spellings decode alike.
        guard encode(bytes) == text else { return nil }
        return bytes
    }
}
