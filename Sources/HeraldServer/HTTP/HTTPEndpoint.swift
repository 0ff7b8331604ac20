import HeraldEngine

/// One REST route, declared once: its method and path, what a request asks of the engine (or the
/// answer it gets at once), and how the engine's reply becomes the response. `HTTPRoutes.all` lists
/// them; `HTTPAPI` matches requests against the list. Thread: the service thread runs both closures.
struct HTTPEndpoint: Sendable {
    /// `"GET /api/jobs/{id}"`: the method, then the path, `{name}` for a segment that is a parameter.
    let name: String
    let method: String
    let segments: [Segment]
    let handle: @Sendable (Call) -> Handling
    let render: @Sendable (Answer) -> HTTPResponse

    enum Segment: Equatable {
        case literal(String)
        case parameter
    }

    /// A request that matched, with its path parameters in order.
    struct Call {
        let request: HTTPRequest
        let parameters: [String]
        let authorizer: Authorizer
    }

    enum Handling {
        case respond(HTTPResponse)
        case ask(EngineRequest)
        /// A file of the dashboard's folder, read off the service thread like any other.
        case file(String)
    }

    /// The engine's reply to what `handle` asked, and what the hub knows as it is rendered.
    struct Answer {
        let reply: EngineReply
        let parameters: [String]
        let status: HTTPAPI.Status
        let version: String
    }

    /// A route that asks the engine (or answers at once) and renders its reply.
    init(
        _ name: String, handle: @escaping @Sendable (Call) -> Handling,
        render: @escaping @Sendable (Answer) -> HTTPResponse = { _ in .error(EngineError(.internalError, "nothing to render")) }
    ) {
        let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
        precondition(parts.count == 2 && parts[1].hasPrefix("/"), "a route is named \"METHOD /path\", not \(name)")
        self.name = name
        self.method = parts[0]
        self.segments = parts[1].split(separator: "/").map { $0.hasPrefix("{") && $0.hasSuffix("}") ? .parameter : .literal(String($0)) }
        self.handle = handle
        self.render = render
    }

    /// The path parameters when `path` (split into segments) is this route's path; nil otherwise.
    func parameters(of path: [String]) -> [String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String] = []
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let literal): guard literal == part else { return nil }
            case .parameter: parameters.append(part)
            }
        }
        return parameters
    }
}
