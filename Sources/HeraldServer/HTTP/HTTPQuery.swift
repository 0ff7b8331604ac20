/// Which route's renderer an engine reply is for (`HTTPEndpoint.name`), with the request's path
/// parameters: carried by the hub's ticket while the engine answers.
public struct HTTPQuery: Sendable, Equatable {
    public let route: String
    public let parameters: [String]

    public init(_ route: String, parameters: [String] = []) {
        self.route = route
        self.parameters = parameters
    }
}
