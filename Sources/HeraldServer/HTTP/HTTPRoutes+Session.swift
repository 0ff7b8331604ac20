import HeraldAccess
import HeraldEngine

/// Signing in and out of the dashboard (docs/security.md): `POST /api/session` checks a user's
/// password (off the service thread: argon2id is slow on purpose) and sets the session cookie;
/// `DELETE /api/session` ends the session and clears it. `GET /api/session` (HTTPRoutes) says who a
/// request is.
extension HTTPRoutes {
    static let session: [HTTPEndpoint] = [
        HTTPEndpoint("POST /api/session", isOpen: true, handle: signIn),
        HTTPEndpoint("DELETE /api/session", isOpen: true, handle: { .respond(signOut($0)) }),
        HTTPEndpoint("GET /api/audit", handle: readAudit),
    ]

    /// `GET /api/audit?limit=N&before=CURSOR`: the newest events first, for admins. On a cluster node
    /// (the trail shares its events with a mirror) from the cluster's shared audit, each event with
    /// its `node`, the cursor an entry id; from this node's own file, `"source": "local"`, when that
    /// cannot be read, and for the pages after such an answer (their cursors are the file's).
    private static func readAudit(_ call: HTTPEndpoint.Call) -> HTTPEndpoint.Handling {
        if let refusal = call.refusal(of: .readAudit) { return .respond(refusal) }
        guard let audit = call.services.audit else { return .respond(.json(["events": [], "next": nil])) }
        let limit = call.request.query["limit"].map { Int($0) } ?? 100
        guard let limit, (1...1_000).contains(limit) else {
            return .respond(.error(.badRequest(field: "limit", "must be an integer from 1 to 1000")))
        }
        let text = call.request.query["before"].flatMap { $0.isEmpty ? nil : $0 }
        let localCursor = text.flatMap { AuditCursor(text: $0) }
        guard let mirror = audit.sharedWith else {
            if let text, localCursor == nil { return .respond(notACursor(text)) }
            return .compute { .json(audit.page(limit: limit, before: localCursor).json) }
        }
        let streamCursor = text.flatMap { AuditStreamID(text: $0) }
        if let text, localCursor == nil, streamCursor == nil { return .respond(notACursor(text)) }
        if let localCursor {
            return .later { answer in audit.page(limit: limit, before: localCursor) { answer(.json($0.json(source: "local"))) } }
        }
        return .later { answer in
            mirror.auditPage(limit: limit, before: streamCursor) { result in
                switch result {
                case .success(let page): answer(.json(page.json))
                case .failure(let error) where streamCursor != nil:
                    // The next page of the shared audit: this node's file cannot go on from there.
                    answer(.error(error))
                case .failure:
                    audit.page(limit: limit) { answer(.json($0.json(source: "local"))) }
                }
            }
        }
    }

    private static func notACursor(_ text: String) -> HTTPResponse {
        .error(.badRequest(field: "before", "\"\(text)\" is not a cursor; pass the \"next\" of a previous page"))
    }

    private static func signIn(_ call: HTTPEndpoint.Call) -> HTTPEndpoint.Handling {
        guard let sessions = call.services.sessions, let access = call.services.access else {
            return .respond(.error(EngineError(.notFound, "this server has no users file to sign in with (--users)")))
        }
        guard let body = try? JSONParser.parse(call.request.body), let user = body["user"]?.stringValue,
            let password = body["password"]?.stringValue
        else {
            return .respond(.error(EngineError(.badRequest, "send {\"user\": NAME, \"password\": PASSWORD} as JSON")))
        }
        guard !user.isEmpty, user.utf8.count <= 256, !password.isEmpty, password.utf8.count <= 1_024 else {
            return .respond(
                .error(EngineError(.badRequest, "the user name and the password must each be 1 to 256 (password: 1,024) bytes")))
        }
        let address = call.request.peer
        let secure = call.services.scheme == "https"
        let audit = call.services.audit
        return .compute {
            let now = access.nowMilliseconds
            switch sessions.signIn(user: user, password: password, address: address, now: now) {
            case .signedIn(let principal, let cookie):
                audit?.append(.signIn(principal, address: address, at: now))
                var response = HTTPResponse.json(principal.json)
                response.headers.append(("set-cookie:", SessionCookie.setting(cookie, secure: secure)))
                return response
            case .refused:
                audit?.append(.signInFailed(knownUser: sessions.isUser(user) ? user : nil, address: address, at: now))
                return .error(EngineError(.unauthorized, "wrong user name or password"))
            case .throttled(let delay):
                audit?.append(.signInFailed(knownUser: sessions.isUser(user) ? user : nil, address: address, at: now))
                let seconds = max(1, delay.components.seconds + (delay.components.attoseconds > 0 ? 1 : 0))
                var response = HTTPResponse.error(
                    EngineError(.rateLimited, "too many failed sign-ins for this name or from this address; try again in \(seconds) s"))
                response.headers.append(("retry-after:", String(seconds)))
                return response
            }
        }
    }

    private static func signOut(_ call: HTTPEndpoint.Call) -> HTTPResponse {
        if let sessions = call.services.sessions, let access = call.services.access,
            let cookie = SessionCookie.value(in: call.request.cookie),
            sessions.signOut(cookie: cookie, now: access.nowMilliseconds) != nil
        {
            // Its open connections close within a sweep (4003).
            access.noteRevocation()
        }
        var response = HTTPResponse.json(["signedOut": true])
        response.headers.append(("set-cookie:", SessionCookie.clearing(secure: call.services.scheme == "https")))
        return response
    }
}
