import HeraldAccess

/// Which route's renderer an engine reply is for (`HTTPEndpoint.name`), with the request's path
/// parameters: carried by the hub's ticket while the engine answers.
public struct HTTPQuery: Sendable, Equatable {
    public let route: String
    public let parameters: [String]
    /// The asking principal's scope when it is limited: the answer holds only its jobs.
    public let scope: AccessScope?

    public init(_ route: String, parameters: [String] = [], scope: AccessScope? = nil) {
        self.route = route
        self.parameters = parameters
        self.scope = scope
    }
}
