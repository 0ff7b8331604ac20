import HeraldAccess
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
    /// Answered without credentials even where the server needs them (`/healthz`, the API's description).
    let isOpen: Bool

    enum Segment: Equatable {
        case literal(String)
        case parameter
    }

    /// A request that matched, with its path parameters in order.
    struct Call {
        let request: HTTPRequest
        let parameters: [String]
        /// Who asks (verified by the hub; anonymous where the server allows it).
        let principal: Principal
        /// Whether the principal's scope reaches a job, by id: nil when it does, else the refusal.
        let reach: (String) -> EngineError?
        /// What the hub lends a route beyond the engine (share links, the clock, revocations).
        let services: HubServices

        /// `forbidden`/`unauthorized` unless the principal may take `action`.
        func refusal(of action: AccessAction) -> HTTPResponse? {
            principal.refusal(of: action).map { .error(EngineError($0)) }
        }

        /// `forbidden` unless the principal sees every job (lists beyond jobs: workers, schedules …).
        func refusalOutsideScope(of what: String) -> HTTPResponse? {
            principal.refusalOutsideScope(of: what).map { .error(EngineError($0)) }
        }
    }

    enum Handling {
        case respond(HTTPResponse)
        case ask(EngineRequest)
        /// A file of the dashboard's folder, read off the service thread like any other.
        case file(String)
        /// Work too slow for the service thread (a password check), run on the transport's sign-in queue.
        case compute(@Sendable () -> HTTPResponse)
        /// Work that answers by itself, later, on any thread (a read from Redis on a cluster node):
        /// started off the service thread, it must not block either, and calls its argument once.
        case later(@Sendable (_ answer: @escaping @Sendable (HTTPResponse) -> Void) -> Void)
    }

    /// The engine's reply to what `handle` asked, and what the hub knows as it is rendered.
    struct Answer {
        let reply: EngineReply
        let parameters: [String]
        let status: HTTPAPI.Status
        let version: String
        /// The asking principal's scope when it is limited.
        let scope: AccessScope?

        /// Whether the asking principal sees this job.
        func sees(_ record: JobRecord) -> Bool {
            scope?.contains(kind: record.kind.rawValue, job: record.id.rawValue) ?? true
        }
    }

    /// A route that asks the engine (or answers at once) and renders its reply.
    init(
        _ name: String, isOpen: Bool = false, handle: @escaping @Sendable (Call) -> Handling,
        render: @escaping @Sendable (Answer) -> HTTPResponse = { _ in .error(EngineError(.internalError, "nothing to render")) }
    ) {
        let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
        precondition(parts.count == 2 && parts[1].hasPrefix("/"), "a route is named \"METHOD /path\", not \(name)")
        self.name = name
        self.method = parts[0]
        self.segments = parts[1].split(separator: "/").map { $0.hasPrefix("{") && $0.hasSuffix("}") ? .parameter : .literal(String($0)) }
        self.handle = handle
        self.render = render
        self.isOpen = isOpen
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
