import HeraldEngine

/// Decides whether a control action (start, cancel) is allowed, given the configured token.
/// With no token configured, everyone may control. Comparison takes the same time wherever the
/// first difference is, so the token cannot be guessed byte by byte.
struct Authorizer: Sendable {
    let token: [UInt8]?

    init(token: String?) { self.token = token.map { Array($0.utf8) } }

    var isRequired: Bool { token != nil }

    func accepts(_ candidate: String?) -> Bool {
        guard let token else { return true }
        guard let candidate else { return false }
        let bytes = Array(candidate.utf8)
        var difference = UInt8(bytes.count == token.count ? 0 : 1)
        for index in 0..<token.count {
            difference |= token[index] ^ (index < bytes.count ? bytes[index] : 0)
        }
        return difference == 0
    }

    /// For REST: the `Authorization: Bearer …` header.
    func refusal(forBearer header: String?) -> EngineError? {
        guard isRequired else { return nil }
        let prefix = "Bearer "
        let candidate = header.flatMap { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : nil }
        return accepts(candidate) ? nil : EngineError(.unauthorized, "this server needs a token to start or cancel jobs")
    }

    /// Same-origin pages (Origin's host equals the Host header) and listed origins are allowed.
    static func isAllowed(origin: String, host: String, allowList: [String]) -> Bool {
        if allowList.contains(origin) || allowList.contains("*") { return true }
        for scheme in ["http://", "https://"] where origin.hasPrefix(scheme) {
            return String(origin.dropFirst(scheme.count)).lowercased() == host.lowercased()
        }
        return false
    }
}
