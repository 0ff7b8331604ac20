/// What a request showed to prove who it is, read off a handshake, an HTTP request or an `auth`
/// message. Holds secrets: never logged, never put in an error or the audit (their names are, once
/// verified, through `Principal`).
public struct PresentedCredentials: Sendable {
    /// `Authorization: Bearer …`, or the `t`/`token` query parameter, or an `auth` message's token: an
    /// API key, a JWT, a share link's token, or the control or worker token.
    public var bearer: String?
    /// The sign-in session cookie's value.
    public var sessionCookie: String?
    /// The trusted user header's value (`--trust-user-header`), honoured only from a trusted proxy.
    public var proxyUser: String?
    /// The peer's numeric address, for `--trusted-proxy` and the audit.
    public var peerAddress: String

    public init(bearer: String? = nil, sessionCookie: String? = nil, proxyUser: String? = nil, peerAddress: String = "?") {
        self.bearer = bearer
        self.sessionCookie = sessionCookie
        self.proxyUser = proxyUser
        self.peerAddress = peerAddress
    }

    /// The token of an `Authorization` header's value, when it is a bearer credential.
    public static func bearer(fromAuthorization header: String?) -> String? {
        guard let header else { return nil }
        let prefix = "bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else { return nil }
        return String(header.dropFirst(prefix.count)).trimmingSpaces()
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
