/// The sign-in session's cookie (docs/security.md): its name, and reading it from a `Cookie` header.
enum SessionCookie {
    static let name = "herald_session"

    /// The `Set-Cookie` value of a new session: never readable by scripts, never sent by another
    /// site's request, only over TLS when the server has it. No expiry: it ends with the browser, and
    /// the server ends it after `--session-idle` without use.
    static func setting(_ value: String, secure: Bool) -> String {
        "\(name)=\(value); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that removes it (sign-out).
    static func clearing(secure: Bool) -> String {
        "\(name)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0" + (secure ? "; Secure" : "")
    }

    /// The session cookie's value in a `Cookie` header (`a=1; herald_session=…`), if present.
    static func value(in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: " ") == name else { continue }
            let value = String(parts[1].trimmingCharacters(in: " "))
            return value.isEmpty ? nil : value
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> Substring {
        var text = self
        while text.first == set { text = text.dropFirst() }
        while text.last == set { text = text.dropLast() }
        return text
    }
}
