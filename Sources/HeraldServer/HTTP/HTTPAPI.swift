import HeraldAccess
import HeraldEngine

/// The REST API, `/healthz`, `/metrics` and the dashboard's files (docs/rest.md), as pure routing:
/// a request becomes an immediate response, a question for the engine (answered later through the
/// inbox and rendered by its route), or a file to read off the service thread. The routes
/// themselves are declared in `HTTPRoutes`. Thread: the service thread.
struct HTTPAPI {
    let version: String
    let endpoints: [HTTPEndpoint]
    private let byName: [String: HTTPEndpoint]

    init(version: String, endpoints: [HTTPEndpoint] = HTTPRoutes.all) {
        self.version = version
        self.endpoints = endpoints
        self.byName = Dictionary(endpoints.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Where a request goes.
    enum Route {
        case respond(HTTPResponse)
        case ask(EngineRequest, HTTPQuery)
        case file(String)
        case compute(@Sendable () -> HTTPResponse)
        case later(@Sendable (_ answer: @escaping @Sendable (HTTPResponse) -> Void) -> Void)
    }

    /// What the hub knows at the moment an answer is rendered.
    struct Status {
        var metrics: ServerMetrics
        var uptimeSeconds: Double
        var epoch: String
    }

    /// A path that a route declares answers that route's method, or 405 naming the methods it
    /// takes; any other GET outside `/api/` is a file of the dashboard; the rest is 404 or 405.
    /// `principal` is who the request proved to be, or why it proved nobody: every route but the open
    /// ones answers that refusal (401). `reach` tells whether the principal's scope reaches a job.
    func route(
        _ request: HTTPRequest, principal: Result<Principal, AccessRefusal> = .success(.anonymousAdmin),
        reach: @escaping (String) -> EngineError? = { _ in nil }, services: HubServices = HubServices()
    ) -> Route {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let matches = endpoints.compactMap { endpoint in endpoint.parameters(of: segments).map { (endpoint, $0) } }
        if let (endpoint, parameters) = matches.first(where: { $0.0.method == request.method }) {
            let asking: Principal
            switch principal {
            case .success(let known): asking = known
            case .failure(let refusal):
                guard endpoint.isOpen else { return .respond(.error(EngineError(refusal))) }
                asking = Principal(name: "anonymous", role: .viewer, scope: AccessScope(jobs: []), source: .anonymous)
            }
            let scope = asking.scope.isUnlimited ? nil : asking.scope
            switch endpoint.handle(
                HTTPEndpoint.Call(request: request, parameters: parameters, principal: asking, reach: reach, services: services))
            {
            case .respond(let response): return .respond(response)
            case .ask(let engineRequest):
                let query = HTTPQuery(endpoint.name, parameters: parameters, scope: scope, principal: asking)
                return .ask(engineRequest, query)
            case .file(let path): return .file(path)
            case .compute(let work): return .compute(work)
            case .later(let work): return .later(work)
            }
        }
        if !matches.isEmpty { return .respond(methodNotAllowed(request.method, allowed: matches.map(\.0.method))) }
        if segments.first == "api" {
            return .respond(.error(EngineError(.notFound, "no such endpoint: \(request.method) \(request.path)")))
        }
        return request.method == "GET" ? .file(request.path) : .respond(methodNotAllowed(request.method, allowed: ["GET"]))
    }

    /// Turns the engine's answer to a routed request into the response, by its route's renderer.
    func render(_ query: HTTPQuery, _ reply: EngineReply, status: Status) -> HTTPResponse {
        guard let endpoint = byName[query.route] else {
            return .error(EngineError(.internalError, "no route \(query.route) to render the engine's answer"))
        }
        return endpoint.render(
            HTTPEndpoint.Answer(reply: reply, parameters: query.parameters, status: status, version: version, scope: query.scope))
    }

    private func methodNotAllowed(_ method: String, allowed: [String]) -> HTTPResponse {
        var response = HTTPResponse.json(["code": "method_not_allowed", "message": .string("\(method) is not allowed here")], status: 405)
        response.headers.append(("allow:", allowed.joined(separator: ", ")))
        return response
    }
}
