/// Everything known about one job: the value the dispatcher owns, snapshots list and history stores.
public struct JobRecord: Sendable, Hashable {
    public let id: JobID
    public let kind: JobKind
    public let params: JSONObject
    public let after: [JobID]
    public let requestId: String?
    /// Changed only by `move(to:)`, which asks `JobState.apply`: an invalid transition is never stored.
    public private(set) var state: JobState
    public internal(set) var progress: JobProgress
    /// Milliseconds since the Unix epoch, like JavaScript's `Date.now()`.
    public let createdAt: Int64
    public internal(set) var startedAt: Int64?
    public internal(set) var finishedAt: Int64?
    public internal(set) var error: String?
    public internal(set) var summary: JSONObject?
    /// How a command job's program ended: `{"code": N}` or `{"signal": "KILL"}`.
    public internal(set) var exit: JSONObject?
    /// The schedule that started the job (docs/schedules.md); nil for a job someone started.
    public internal(set) var schedule: String?
    /// Who started the job: a user, an API key's or a JWT's name, `schedule:NAME` for a schedule's,
    /// `anonymous` on a server without identities; nil where no identity was known (older records).
    public internal(set) var startedBy: String?
    /// Who cancelled the job, named as `startedBy`; nil unless someone asked for the cancel.
    public internal(set) var cancelledBy: String?
    /// Which attempt runs (or ran last): 1, 2, …; nil for kinds that are never retried.
    public internal(set) var attempt: Int?
    /// The name of the remote worker running (or that last ran) the job; nil for a job run here.
    public internal(set) var worker: String?
    /// The cluster node that runs (or ran) the job (`herald serve --redis`); nil for a single server.
    public internal(set) var node: String?

    public init(
        id: JobID, kind: JobKind, params: JSONObject, after: [JobID] = [], requestId: String? = nil,
        state: JobState = .queued, progress: JobProgress = JobProgress(), createdAt: Int64,
        startedAt: Int64? = nil, finishedAt: Int64? = nil, error: String? = nil, summary: JSONObject? = nil, node: String? = nil,
        schedule: String? = nil, startedBy: String? = nil
    ) {
        self.schedule = schedule
        self.startedBy = startedBy
        self.node = node
        self.id = id
        self.kind = kind
        self.params = params
        self.after = after
        self.requestId = requestId
        self.state = state
        self.progress = progress
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.error = error
        self.summary = summary
    }

    /// Notes how and when the job ended (wall-clock milliseconds), and who cancelled it if someone
    /// did. A wall clock stepped back while the job ran would make it end before it began: the end is
    /// never before its start (or its creation), so a duration shown is never negative.
    public mutating func markEnded(error: String?, at time: Int64, cancelledBy: String? = nil) {
        self.error = error
        finishedAt = max(time, startedAt ?? createdAt)
        if let cancelledBy { self.cancelledBy = cancelledBy }
    }

    /// Notes when the job started (wall-clock milliseconds), never before it was created (a wall clock
    /// stepped back while it waited).
    mutating func markStarted(at time: Int64) {
        startedAt = max(time, createdAt)
    }

    /// Moves to `next` through the lifecycle's rules; a refused move leaves the record untouched.
    public mutating func move(to next: JobState) throws(JobState.InvalidTransition) {
        state = try state.apply(next)
    }
}
