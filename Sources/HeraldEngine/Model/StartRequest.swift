/// A request to start a job, as a client sends it (the `start` command or `POST /api/jobs`).
public struct StartRequest: Sendable, Equatable {
    public var kind: String
    public var params: JSONObject
    public var after: [String]
    public var requestId: String?
    /// The id the job gets, when something other than the dispatcher chose it (a cluster node, which
    /// reserves the id in Redis first); nil: a fresh random one. Never read from a client.
    public var id: JobID?
    /// The schedule starting the job (`Scheduler`); never read from a client.
    public var schedule: String?
    /// Who asks for the job (`JobRecord.startedBy`), as the server verified it; never read from a client.
    public var startedBy: String?

    public init(kind: String, params: JSONObject = [:], after: [String] = [], requestId: String? = nil) {
        self.kind = kind
        self.params = params
        self.after = after
        self.requestId = requestId
    }
}
