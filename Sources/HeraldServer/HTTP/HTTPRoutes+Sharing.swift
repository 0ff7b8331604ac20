import HeraldAccess
import HeraldEngine
import HeraldSupport

/// Share links (docs/security.md): an operator makes a signed, expiring, view-only link to one job;
/// admins list them and revoke one or all; a link's creator may revoke its own. Answered by the hub
/// (`ShareLinkStore`), not the engine. `DELETE /api/shares` revokes them all (a new key).
extension HTTPRoutes {
    static let sharing: [HTTPEndpoint] = [
        HTTPEndpoint("POST /api/jobs/{id}/share", handle: { .respond(share($0)) }),
        HTTPEndpoint("GET /api/shares", handle: { .respond(listShares($0)) }),
        HTTPEndpoint("DELETE /api/shares/{id}", handle: { .respond(revokeShare($0)) }),
        HTTPEndpoint("DELETE /api/shares", handle: { .respond(revokeAllShares($0)) }),
    ]

    /// How long a link lasts when the request does not say (`for`).
    static let defaultShareLifetime = Duration.seconds(86_400)

    private static func share(_ call: HTTPEndpoint.Call) -> HTTPResponse {
        guard let links = call.services.shareLinks, let access = call.services.access else {
            return .error(EngineError(.notFound, "this server makes no share links"))
        }
        if let refusal = call.refusal(of: .share) { return refusal }
        let job = call.parameters[0]
        if let error = call.reach(job) { return .error(error) }
        guard call.services.isKnown(job) else { return .error(EngineError(.notFound, "no job \(job) among the jobs this server holds")) }
        var lifetime = defaultShareLifetime
        var text = call.request.query["for"]
        if !call.request.body.isEmpty {
            // A body is optional, but one that is there must be what the API says: {"for": "1h"}.
            guard let body = try? JSONParser.parse(call.request.body), let object = body.objectValue else {
                return .error(EngineError(.badJSON, "the body, when there is one, is a JSON object like {\"for\": \"1h\"}"))
            }
            if let value = object["for"] {
                guard let given = value.stringValue else { return .error(.badRequest(field: "for", "must be a string like \"1h\"")) }
                text = given
            }
        }
        if let text {
            guard let parsed = DurationText.parse(text) else {
                return .error(.badRequest(field: "for", "\"\(text)\" is not a duration; use \(DurationText.expected)"))
            }
            lifetime = parsed
        }
        switch links.make(job: job, creator: call.principal.name, lifetime: lifetime, now: access.nowMilliseconds) {
        case .failure(let refusal):
            return .error(EngineError(refusal.kind == .forbidden ? .badRequest : .unauthorized, refusal.message))
        case .success(let made):
            call.services.audit?.append(.shareMade(made.link, address: call.request.peer, at: access.nowMilliseconds))
            let host = call.request.host ?? "127.0.0.1"
            let url = "\(call.services.scheme)://\(host)/share.html?t=\(made.token)"
            return .json(
                [
                    "id": .string(made.link.id), "job": .string(job), "url": .string(url), "token": .string(made.token),
                    "expiresAt": .int(made.link.expiresAt),
                ], status: 201)
        }
    }

    private static func listShares(_ call: HTTPEndpoint.Call) -> HTTPResponse {
        guard let links = call.services.shareLinks, let access = call.services.access else { return .json(["links": []]) }
        if let refusal = call.refusal(of: .revoke) { return refusal }
        return .json(["links": .array(links.list(now: access.nowMilliseconds).map(\.json))])
    }

    private static func revokeShare(_ call: HTTPEndpoint.Call) -> HTTPResponse {
        let id = call.parameters[0]
        guard let links = call.services.shareLinks, let access = call.services.access,
            let record = links.record(id: id, now: access.nowMilliseconds)
        else { return .error(EngineError(.notFound, "no unexpired share link \(id)")) }
        // Its creator may take back a link it made; anyone else's are the admin's.
        if record.creator != call.principal.name || call.principal.source == .anonymous, let refusal = call.refusal(of: .revoke) {
            return refusal
        }
        guard let revoked = links.revoke(id: id, now: access.nowMilliseconds) else {
            return .error(EngineError(.notFound, "no unexpired share link \(id)"))
        }
        access.noteRevocation()
        call.services.audit?.append(.shareRevoked(revoked, by: call.principal, at: access.nowMilliseconds))
        return .json(revoked.json)
    }

    private static func revokeAllShares(_ call: HTTPEndpoint.Call) -> HTTPResponse {
        guard let links = call.services.shareLinks, let access = call.services.access else { return .json(["revoked": 0]) }
        if let refusal = call.refusal(of: .revoke) { return refusal }
        let ended = links.revokeAll()
        access.noteRevocation()
        call.services.audit?.append(.allSharesRevoked(count: ended.count, by: call.principal, at: access.nowMilliseconds))
        return .json(["revoked": .int(Int64(ended.count))])
    }
}

extension ShareLinkRecord {
    /// A link as admins see it: never its token.
    var json: JSONValue {
        .object([
            "id": .string(id), "job": .string(job), "creator": .string(creator), "createdAt": .int(createdAt),
            "expiresAt": .int(expiresAt),
        ])
    }
}
