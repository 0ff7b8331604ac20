/// A JWS in compact serialization (RFC 7515 section 7.1), taken apart but not yet trusted: the header,
/// the bytes that were signed, the signature, and the payload's bytes, which are read as claims only
/// once the signature verifies (`JWTKeyring`). Parsing is strict: three base64url parts without
/// padding, a header that is a JSON object with a string `alg`, no `crit` extensions. Nothing here
/// fetches a key a header names (`jku`, `x5u`, `jwk` are ignored): keys come from the operator only.
public struct JSONWebToken: Sendable {
    /// The largest token read at all; a longer one is refused before any parsing.
    public static let maximumBytes = 8 * 1024

    /// The header's `alg`, as the token spells it (checked against the key later).
    public let algorithm: String
    /// The header's `kid`: which key of the keyring signed it.
    public let keyID: String?
    /// The header's `typ` (informational: any string is accepted).
    public let type: String?
    /// The ASCII of "header.payload": what the signature covers.
    public let signingInput: [UInt8]
    public let signature: [UInt8]
    /// The decoded payload: a JSON object once it is read (`claims()`).
    let payload: [UInt8]

    public init(compact token: String) throws(AccessRefusal) {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maximumBytes else { throw .unauthorized("token larger than 8 KiB") }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .unauthorized("token is not a compact JWS (three base64url parts separated by dots)") }
        guard let headerBytes = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw .unauthorized("token is not base64url (without padding)") }
        guard let header = JWTJSONValue.object(from: headerBytes) else { throw .unauthorized("token header is not a JSON object") }
        guard case .string(let algorithm)? = header["alg"] else { throw .unauthorized("token header has no alg") }
        if let keyID = header["kid"], keyID.stringValue == nil { throw .unauthorized("token header's kid is not a string") }
        if let type = header["typ"], type.stringValue == nil { throw .unauthorized("token header's typ is not a string") }
        // RFC 7515 4.1.11: a recipient that does not understand every extension `crit` lists must refuse.
        guard header["crit"] == nil else { throw .unauthorized("token header has crit extensions, which are not supported") }
        self.algorithm = algorithm
        self.keyID = header["kid"]?.stringValue
        self.type = header["typ"]?.stringValue
        self.signingInput = Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1])
        self.signature = signature
        self.payload = payload
    }

    /// The payload's claims; call only once the signature has verified.
    func claims() throws(AccessRefusal) -> [String: JWTJSONValue] {
        guard let claims = JWTJSONValue.object(from: payload) else { throw .unauthorized("token payload is not a JSON object") }
        return claims
    }

    /// `text` quoted for a refusal's message when it is short printable ASCII, else a placeholder: a
    /// header's or claim's value is the sender's, and may be anything.
    static func quoted(_ text: String) -> String {
        let printable = text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        return printable && text.utf8.count <= 64 ? "\"\(text)\"" : "(not shown)"
    }
}
