import HeraldAccess
import HeraldEngine

/// Plain HTTP on the same port: the REST API, health, metrics and the dashboard's files.
/// Thread: the service thread.
extension StreamHub {
    /// A complete HTTP request (headers and body). Answered at once, or later when the engine's
    /// answer or the file arrives through the inbox.
    public mutating func httpRequest(_ id: ConnectionID, _ request: HTTPRequest, into actions: inout [HubAction]) {
        if isClosing {
            return respond(id, .error(EngineError(.shuttingDown, "the server is shutting down")), into: &actions)
        }
        if request.path == "/ws" {
            return respond(id, .text("This is the WebSocket endpoint: connect with a WebSocket client.\n", status: 426), into: &actions)
        }
        let credentials = PresentedCredentials(
            bearer: PresentedCredentials.bearer(fromAuthorization: request.authorization) ?? request.query["t"],
            sessionCookie: SessionCookie.value(in: request.cookie), proxyUser: request.proxyUser, peerAddress: request.peer)
        let principal = access.authenticate(credentials)
        if case .success(let known) = principal { auditRESTUse(known, peer: request.peer) }
        if case .failure = principal, request.method == "GET", request.path == "/" || request.path == "/index.html" {
            // A browser without a session is shown the sign-in page, not a dashboard that cannot connect.
            return respond(id, .redirect(to: "/signin.html"), into: &actions)
        }
        if case .success(let known) = principal, case .session = known.source, !["GET", "HEAD"].contains(request.method),
            let origin = request.origin,
            !OriginPolicy.isAllowed(origin: origin, host: request.host ?? "", allowList: configuration.allowedOrigins)
        {
            // A page of another site may make this browser send its session cookie; it may not act with it.
            let error = EngineError(.forbidden, "a request from \(origin) may not act with this browser's sign-in")
            auditRefused(error, principal: known, peer: request.peer)
            return respond(id, .error(error), into: &actions)
        }
        if request.method == "POST", request.path == "/api/session", let origin = request.origin,
            !OriginPolicy.isAllowed(origin: origin, host: request.host ?? "", allowList: configuration.allowedOrigins)
        {
            // Nor sign this browser in to an account of its choosing.
            return respond(id, .error(EngineError(.forbidden, "a sign-in from \(origin) is not taken")), into: &actions)
        }
        // One copy of the map for the request's closures (a value: the hub goes on changing its own).
        let kinds = jobKinds
        var reach: (String) -> EngineError? = { _ in nil }
        if case .success(let known) = principal, !known.scope.isUnlimited {
            reach = { job in
                let id = JobID(job)
                if let jobs = known.scope.jobs, !jobs.contains(job) { return EngineError(.notFound, "no job \(job)") }
                if let allowed = known.scope.kinds, !(kinds[id].map { allowed.contains($0) } ?? false) {
                    return EngineError(.notFound, "no job \(job)")
                }
                return nil
            }
        }
        let services = HubServices(
            shareLinks: configuration.shareLinks, sessions: configuration.sessions, audit: configuration.audit, access: access,
            isKnown: { kinds[JobID($0)] != nil },
            scheme: configuration.tlsCertificatePath == nil ? "http" : "https")
        switch api.route(request, principal: principal, reach: reach, services: services) {
        case .respond(let response):
            if response.status == 401 || response.status == 403, request.path.hasPrefix("/api/"),
                let body = try? JSONParser.parse(response.body), let message = body["message"]?.stringValue
            {
                let code: ErrorCode = response.status == 401 ? .unauthorized : .forbidden
                auditRefused(EngineError(code, message), principal: try? principal.get(), peer: request.peer)
            }
            respond(id, response, into: &actions)
        case .ask(let engineRequest, let query):
            pendingHTTP.insert(id)
            actions.append(.ask(engineRequest, .http(id, query)))
        case .compute(let work):
            pendingHTTP.insert(id)
            actions.append(.compute(id, work))
        case .later(let work):
            pendingHTTP.insert(id)
            actions.append(.answerLater(id, work))
        case .file(let path):
            pendingHTTP.insert(id)
            actions.append(.readFile(id, path: path, allowOrigin: crossOriginReader(of: path, request)))
        }
    }

    /// The JavaScript client may be imported by a page of another origin that `--allow-origin` names
    /// (the origin that may open the WebSocket may load the module that opens it): its `Origin`, echoed.
    /// Only `/client.js`: the dashboard's other files stay same-origin.
    func crossOriginReader(of path: String, _ request: HTTPRequest) -> String? {
        guard path == "/client.js", let origin = request.origin else { return nil }
        let allowList = configuration.allowedOrigins
        return allowList.contains(origin) || allowList.contains("*") ? origin : nil
    }

    mutating func respond(_ id: ConnectionID, _ response: HTTPResponse, into actions: inout [HubAction]) {
        metrics.httpRequests += 1
        actions.append(.respond(id, response))
    }
}
