import HeraldCrypto

/// Whether a users file's `password` is an argon2id hash Herald will verify, and if not, what to say:
/// a file that holds a password in clear must be refused, not read as a very unlikely hash.
enum Argon2idHashCheck {
    static func problem(with value: String) -> String? {
        if Argon2id.parameters(of: value) != nil { return nil }
        if value.hasPrefix("$argon2id$") {
            return "is a malformed argon2id hash (want $argon2id$v=19$m=KiB,t=N,p=N$salt$hash, m up to 1048576, t and p 1 to 64)"
        }
        if value.hasPrefix("$argon2") || value.hasPrefix("$2") || value.hasPrefix("$6$") || value.hasPrefix("$5$") {
            return "is a hash of another kind: only argon2id hashes are accepted (set it again with `herald users add`)"
        }
        return "is not an argon2id hash; it looks like a password in clear, which the file must never hold"
            + " (remove the user and add it again with `herald users add`)"
    }
}
