import HeraldCrypto

/// A JSON Web Key Set (RFC 7517 section 5) read into `JWTKey`s: RSA (`n`, `e`), EC P-256/P-384
/// (`crv`, `x`, `y`) and symmetric (`oct`, `k`) keys. Keys for encryption (`use: enc`) are skipped;
/// anything else Herald cannot use, or a private key's parameters, is an error rather than a key that
/// silently never matches.
enum JWKSet {
    /// The members only a private key has (RFC 7518 6.2.2 and 6.3.2).
    private static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth"]

    static func keys(from bytes: [UInt8]) throws(JWTConfigurationError) -> [JWTKey] {
        guard let document = JWTJSONValue.object(from: bytes) else { throw JWTConfigurationError("not a JSON object") }
        guard case .array(let entries)? = document["keys"] else { throw JWTConfigurationError("has no \"keys\" array") }
        var keys: [JWTKey] = []
        for (index, entry) in entries.enumerated() {
            guard case .object(let members) = entry else { throw JWTConfigurationError("key \(index + 1) is not a JSON object") }
            let id = members["kid"]?.stringValue
            let name = "key \(index + 1)" + (id.map { " (kid \(JSONWebToken.quoted($0)))" } ?? "")
            do throws(JWTConfigurationError) {
                if let key = try self.key(members, id: id) { keys.append(key) }
            } catch {
                throw JWTConfigurationError("\(name): \(error.description)")
            }
        }
        guard !keys.isEmpty else { throw JWTConfigurationError("holds no signature keys") }
        return keys
    }

    /// The key one JWK describes; nil for a key meant for encryption.
    private static func key(_ members: [String: JWTJSONValue], id: String?) throws(JWTConfigurationError) -> JWTKey? {
        if let use = members["use"] {
            guard let value = use.stringValue else { throw JWTConfigurationError("use is not a string") }
            guard value == "sig" else { return nil }
        }
        if let kid = members["kid"], kid.stringValue == nil { throw JWTConfigurationError("kid is not a string") }
        var algorithm: JWTAlgorithm?
        if let alg = members["alg"] {
            guard let name = alg.stringValue, let known = JWTAlgorithm(rawValue: name) else {
                throw JWTConfigurationError("alg \(JSONWebToken.quoted(alg.stringValue ?? "?")) is not supported")
            }
            algorithm = known
        }
        let material: JWTKey.Material
        switch members["kty"]?.stringValue {
        case "RSA":
            try refusePrivate(members)
            let (n, e) = (try bytes("n", members), try bytes("e", members))
            material = .publicKey(try publicKey { () throws(PublicKeyError) in try PublicKey(rsaModulus: n, exponent: e) })
        case "EC":
            try refusePrivate(members)
            guard let crv = members["crv"]?.stringValue, let curve = EllipticCurve(rawValue: crv) else {
                throw JWTConfigurationError("crv must be P-256 or P-384")
            }
            let (x, y) = (try bytes("x", members), try bytes("y", members))
            material = .publicKey(try publicKey { () throws(PublicKeyError) in try PublicKey(curve: curve, x: x, y: y) })
        case "oct":
            let secret = try bytes("k", members)
            guard secret.count >= JWTKey.minimumSecretBytes else {
                throw JWTConfigurationError("an HS secret must be at least \(JWTKey.minimumSecretBytes) bytes (k has \(secret.count))")
            }
            material = .secret(secret)
        case let other?: throw JWTConfigurationError("kty \(JSONWebToken.quoted(other)) is not supported (RSA, EC or oct)")
        case nil: throw JWTConfigurationError("has no kty")
        }
        let key = JWTKey(material, id: id, algorithm: algorithm)
        if let algorithm, !key.allows(algorithm) {
            throw JWTConfigurationError("alg \(algorithm.rawValue) does not fit \(key.description)")
        }
        return key
    }

    private static func publicKey(_ make: () throws(PublicKeyError) -> PublicKey) throws(JWTConfigurationError) -> PublicKey {
        do throws(PublicKeyError) {
            return try make()
        } catch { throw JWTConfigurationError(error.description) }
    }

    private static func refusePrivate(_ members: [String: JWTJSONValue]) throws(JWTConfigurationError) {
        if let member = privateMembers.first(where: { members[$0] != nil }) {
            throw JWTConfigurationError("holds a private key's parameter \(member): publish only the public key")
        }
    }

    /// A base64url member's bytes.
    private static func bytes(_ name: String, _ members: [String: JWTJSONValue]) throws(JWTConfigurationError) -> [UInt8] {
        guard let text = members[name]?.stringValue else { throw JWTConfigurationError("has no \(name)") }
        guard let bytes = Base64URL.decode(Array(text.utf8)), !bytes.isEmpty else {
            throw JWTConfigurationError("\(name) is not base64url (without padding)")
        }
        return bytes
    }
}
