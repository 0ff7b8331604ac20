import Foundation
import HeraldAccess
import HeraldEngine
import HeraldSupport

/// `serve`'s identity flags (docs/security.md), checked at start so a typo is one clear line and exit 2,
/// never a server that is more open than its operator meant.
struct AccessOptions {
    var settings = AccessSettings()
    /// `--jwt-key`, `--jwks`, `--jwt-audience`, `--jwt-issuer`: JWTs minted by the operator's application.
    var jwt: JWTKeyring?
    /// `--users FILE` (or `$HERALD_USERS`): users with passwords, and API keys; its directory as read at start.
    var usersFile: (path: String, directory: UserDirectory)?
    /// `--session-idle`: a sign-in session unused this long ends.
    var sessionIdle = Duration.seconds(12 * 3_600)

    init(
        _ arguments: Arguments, environment: [String: String], controlToken: String?, workerToken: String?
    ) throws(Arguments.UsageError) {
        settings.controlToken = controlToken
        settings.workerToken = workerToken
        settings.publicView = arguments.has("public-view")
        let header = arguments.last("trust-user-header")
        let proxies = arguments.all("trusted-proxy")
        switch (header, proxies.isEmpty) {
        case (nil, true): break
        case (nil, false): throw Arguments.UsageError(description: "--trusted-proxy needs --trust-user-header NAME (the header it sets)")
        case (_?, true): throw Arguments.UsageError(description: "--trust-user-header needs --trusted-proxy CIDR (whose header to believe)")
        case (let header?, false):
            guard Self.isHeaderName(header) else {
                throw Arguments.UsageError(description: "--trust-user-header \"\(header)\" is not a header name")
            }
            var ranges: [AddressRange] = []
            for text in proxies {
                guard let range = AddressRange(text) else {
                    throw Arguments.UsageError(description: "--trusted-proxy \"\(text)\" is not an address or CIDR range (10.0.0.0/8, ::1)")
                }
                ranges.append(range)
            }
            let role = try Self.role(arguments.last("proxy-role") ?? "operator", flag: "proxy-role")
            settings.trustedProxy = AccessSettings.TrustedProxy(header: header, addresses: ranges, role: role)
        }
        if arguments.last("proxy-role") != nil, settings.trustedProxy == nil {
            throw Arguments.UsageError(description: "--proxy-role needs --trust-user-header and --trusted-proxy")
        }
        let keyFiles = arguments.all("jwt-key")
        let jwksFiles = arguments.all("jwks")
        if keyFiles.isEmpty, jwksFiles.isEmpty {
            for flag in ["jwt-audience", "jwt-issuer"] where arguments.last(flag) != nil {
                throw Arguments.UsageError(description: "--\(flag) needs --jwt-key FILE or --jwks FILE")
            }
        } else {
            do {
                jwt = try JWTKeyring(
                    keyFiles: keyFiles, jwksFiles: jwksFiles, audience: arguments.last("jwt-audience"), issuer: arguments.last("jwt-issuer")
                )
            } catch {
                throw Arguments.UsageError(description: error.description)
            }
        }
        if let path = arguments.last("users") ?? environment["HERALD_USERS"].flatMap({ $0.isEmpty ? nil : $0 }) {
            usersFile = (path, try CredentialFiles.load(path))
        }
        if let text = arguments.last("session-idle") {
            guard usersFile != nil else { throw Arguments.UsageError(description: "--session-idle needs --users FILE") }
            guard let idle = DurationText.parse(text) else {
                throw Arguments.UsageError(
                    description: "--session-idle \"\(text)\" is not a duration; use \(DurationText.expected)")
            }
            sessionIdle = idle
        }
        settings.identitiesRequired = settings.trustedProxy != nil || jwt != nil || usersFile != nil
        if settings.publicView, !settings.identitiesRequired {
            throw Arguments.UsageError(
                description:
                    "--public-view keeps watching open where identities are on; give --users, --jwt-key, --jwks or --trust-user-header too")
        }
    }

    /// The verifiers of what these flags configured (the fixed tokens are the settings').
    var verifiers: [any CredentialVerifier] {
        var verifiers: [any CredentialVerifier] = []
        if let jwt { verifiers.append(JWTVerifier(keyring: jwt)) }
        return verifiers
    }

    static func role(_ text: String, flag: String) throws(Arguments.UsageError) -> Role {
        guard let role = Role(rawValue: text) else {
            let roles = Role.allCases.map(\.rawValue).joined(separator: ", ")
            throw Arguments.UsageError(description: "--\(flag) must be one of \(roles), not \"\(text)\"")
        }
        return role
    }

    /// RFC 9110's token characters: what a header name may be.
    private static func isHeaderName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0))
            }
    }
}
