/// A request to start a job, as a client sends it (the `start` command or `POST /api/jobs`).
public struct StartRequest: Sendable, Equatable {
    public var kind: String
    public var params: JSONObject
    public var after: [String]
    public var requestId: String?

    public init(kind: String, params: JSONObject = [:], after: [String] = [], requestId: String? = nil) {
        self.kind = kind
        self.params = params
        self.after = after
        self.requestId = requestId
    }
}
