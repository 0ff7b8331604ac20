import HeraldAccess
import HeraldEngine

extension Principal {
    /// `GET /api/session`: who the request proved to be, with its role, scope and expiry. Names only,
    /// never the credential.
    var json: JSONValue {
        var object: JSONObject = ["name": .string(name), "role": .string(role.rawValue), "via": .string(source.kindName)]
        if let jobs = scope.jobs { object["jobs"] = .array(jobs.sorted().map { .string($0) }) }
        if let kinds = scope.kinds { object["kinds"] = .array(kinds.sorted().map { .string($0) }) }
        if let expiresAtMilliseconds { object["expiresAt"] = .int(expiresAtMilliseconds) }
        return .object(object)
    }
}

extension CredentialSource {
    /// How the principal proved itself, as one word for the API and the logs.
    var kindName: String {
        switch self {
        case .anonymous: return "anonymous"
        case .controlToken: return "token"
        case .session: return "session"
        case .key: return "key"
        case .jwt: return "jwt"
        case .shareLink: return "share"
        case .proxy: return "proxy"
        case .workerToken: return "worker-token"
        case .forwardedByNode: return "node"
        }
    }
}
