/// One kind of job: how its params are checked and how it runs. Runners hold no per-job state.
public protocol JobRunner: Sendable {
    var kind: JobKind { get }

    /// Checks and normalises params (defaults filled in) before the job exists.
    /// Thread: the caller of `start` (the dispatcher queue).
    func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject

    /// Does the work on a worker thread. Returns the summary; throws `JobCancelled` when it stopped
    /// for a cancel, anything else when it failed.
    func run(_ context: JobContext) throws -> JSONObject

    /// A page of a finished job's results, for kinds whose results live outside the event stream
    /// (sort). Nil means "use the streamed result items". Thread: any.
    func page(of job: JobRecord, offset: Int, limit: Int, environment: JobEnvironment) throws(EngineError) -> ResultPage?

    /// What the snapshot tells clients about this kind besides its limits (a command kind's title
    /// and declared params, from which the dashboard builds a start form); nil for nothing.
    var catalogEntry: JSONObject? { get }

    /// How a failed attempt is retried; nil: never (the job fails at once, and has no `attempt`).
    var retryPolicy: RetryPolicy? { get }

    /// Whether this server can run the kind itself; false for a kind only remote workers run.
    var runsLocally: Bool { get }
}

extension JobRunner {
    public var catalogEntry: JSONObject? { nil }
    public var retryPolicy: RetryPolicy? { nil }
    public var runsLocally: Bool { true }

    public func page(of job: JobRecord, offset: Int, limit: Int, environment: JobEnvironment) throws(EngineError) -> ResultPage? {
        nil
    }
}
