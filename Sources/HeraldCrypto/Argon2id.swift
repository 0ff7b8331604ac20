internal import CArgon2

/// Password hashes with argon2id (RFC 9106), computed by Debian's libargon2, the reference
/// implementation: Herald writes no cryptography of its own. A hash travels as the PHC string format
/// every argon2 tool reads and writes (`$argon2id$v=19$m=65536,t=1,p=1$<salt>$<hash>`, unpadded
/// base64), so it carries its own salt and parameters and a verifier needs nothing else.
/// Thread: any (each call allocates its own memory; the library keeps no shared state).
public enum Argon2id {
    /// The cost of one hash: memory in KiB, passes over it, lanes.
    public struct Parameters: Sendable, Hashable, CustomStringConvertible {
        public var memoryKiB: UInt32
        public var iterations: UInt32
        public var parallelism: UInt32

        public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }

        /// 64 MiB, 1 pass, 1 lane: more memory than OWASP's argon2id minimum for one pass (46 MiB),
        /// and about 100 ms of one core with Debian's libargon2 (docs/security.md), which a person
        /// signing in does not notice and which holds a stolen file to about ten guesses per second
        /// per core. Memory, not passes, is what a GPU or ASIC attacker pays for, hence the choice of
        /// more memory over more passes. One lane: a server handling sign-ins in parallel gets
        /// nothing from more threads per hash.
        public static let standard = Parameters(memoryKiB: 65_536, iterations: 1, parallelism: 1)

        /// What a hash read from a file may ask for: a hand-edited parameter must not let one sign-in
        /// take gigabytes or minutes. libargon2 itself needs at least 8 KiB per lane.
        public var isWithinLimits: Bool {
            (1...64).contains(parallelism) && (1...64).contains(iterations) && memoryKiB >= 8 * parallelism
                && memoryKiB <= 1_048_576
        }

        public var description: String { "m=\(memoryKiB),t=\(iterations),p=\(parallelism)" }
    }

    /// Bytes of random salt per hash (RFC 9106 recommends 16).
    public static let saltBytes = 16
    /// Bytes of the hash itself (RFC 9106 recommends 32).
    public static let hashBytes = 32

    /// A fresh PHC string for `password`: a new random salt each time, so equal passwords hash apart.
    public static func hash(password: String, parameters: Parameters = .standard) -> String {
        hash(password: password, salt: SecureRandom.bytes(saltBytes), parameters: parameters)
    }

    /// The PHC string for `password` with a given salt: for tests that compare with another argon2
    /// implementation; everything else wants the random salt of `hash(password:parameters:)`.
    public static func hash(password: String, salt: [UInt8], parameters: Parameters) -> String {
        precondition(parameters.isWithinLimits, "argon2id parameters out of range: \(parameters)")
        precondition(salt.count >= 8, "argon2id needs a salt of at least 8 bytes")
        let length = argon2_encodedlen(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism, UInt32(salt.count), UInt32(hashBytes), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let secret = Array(password.utf8)
        let status = secret.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBytes { saltBytes in
                encoded.withUnsafeMutableBufferPointer { out in
                    argon2id_hash_encoded(
                        parameters.iterations, parameters.memoryKiB, parameters.parallelism, passwordBytes.baseAddress,
                        passwordBytes.count, saltBytes.baseAddress, saltBytes.count, hashBytes, out.baseAddress, out.count)
                }
            }
        }
        // With parameters and salt checked above, the library fails only when it cannot allocate the
        // memory the parameters ask for: nothing a caller could recover from.
        precondition(status == ARGON2_OK.rawValue, "argon2id failed: \(String(cString: argon2_error_message(status)))")
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `encoded` (a PHC string) was made from. libargon2 recomputes the
    /// hash with the string's own salt and parameters and compares in constant time. A string that is
    /// no argon2id hash, or whose parameters are out of `Parameters.isWithinLimits`, verifies nothing.
    public static func verify(encoded: String, password: String) -> Bool {
        guard parameters(of: encoded) != nil else { return false }
        let secret = Array(password.utf8)
        let status = secret.withUnsafeBytes { passwordBytes in
            encoded.withCString { argon2id_verify($0, passwordBytes.baseAddress, passwordBytes.count) }
        }
        return status == ARGON2_OK.rawValue
    }

    /// The parameters of a well-formed argon2id PHC string (version 19, parameters within limits, a
    /// salt of 8 to 64 bytes and a hash of 16 to 64 bytes in unpadded base64); nil for anything else.
    public static func parameters(of encoded: String) -> Parameters? {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].isEmpty, fields[1] == "argon2id", fields[2] == "v=19" else { return nil }
        var values: [UInt32] = []
        for (field, name) in zip(fields[3].split(separator: ",", omittingEmptySubsequences: false), ["m=", "t=", "p="]) {
            guard field.hasPrefix(name), let value = UInt32(field.dropFirst(2)), String(value) == field.dropFirst(2) else { return nil }
            values.append(value)
        }
        guard values.count == 3, fields[3].split(separator: ",", omittingEmptySubsequences: false).count == 3 else { return nil }
        let parameters = Parameters(memoryKiB: values[0], iterations: values[1], parallelism: values[2])
        guard parameters.isWithinLimits,
            let salt = unpaddedBase64Length(fields[4]), (8...64).contains(salt),
            let hash = unpaddedBase64Length(fields[5]), (16...64).contains(hash)
        else { return nil }
        return parameters
    }

    /// How many bytes an unpadded standard-base64 text decodes to; nil when it is not one.
    private static func unpaddedBase64Length(_ text: Substring) -> Int? {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        guard text.utf8.allSatisfy({ alphabet.contains($0) }), text.utf8.count % 4 != 1 else { return nil }
        return text.utf8.count * 3 / 4
    }
}
