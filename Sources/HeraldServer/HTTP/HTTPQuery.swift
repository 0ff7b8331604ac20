import HeraldAccess

/// Which route's renderer an engine reply is for (`HTTPEndpoint.name`), with the request's path
/// parameters: carried by the hub's ticket while the engine answers.
public struct HTTPQuery: Sendable, Equatable {
    public let route: String
    public let parameters: [String]
    /// The asking principal's scope when it is limited: the answer holds only its jobs.
    public let scope: AccessScope?
    /// Who asked, for the audit of a start or cancel once the engine took it.
    public let principal: Principal?

    public init(_ route: String, parameters: [String] = [], scope: AccessScope? = nil, principal: Principal? = nil) {
        self.route = route
        self.parameters = parameters
        self.scope = scope
        self.principal = principal
    }

    /// The same question of the engine and the same rendering: who asked is for the audit only.
    public static func == (left: HTTPQuery, right: HTTPQuery) -> Bool {
        left.route == right.route && left.parameters == right.parameters && left.scope == right.scope
    }
}
