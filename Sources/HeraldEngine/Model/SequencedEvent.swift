/// An event with its place in the one total order: `seq` grows by one per event within an `epoch`.
/// `json` is the event's wire encoding, made once on the dispatcher queue and shared by every
/// client, the event log and resumes.
public struct SequencedEvent: Sendable {
    public let seq: Int64
    /// Wall-clock microseconds since the Unix epoch at which the dispatcher numbered the event (for
    /// progress, when the value was sampled from the job: at most a sampling interval after its report).
    public let ts: Int64
    public let event: EngineEvent
    public let json: [UInt8]

    public init(seq: Int64, ts: Int64, event: EngineEvent) {
        self.seq = seq
        self.ts = ts
        self.event = event
        self.json = WireEncoder.encode(event: event, seq: seq, ts: ts)
    }

    /// The job the event is about (nil for news and workers): connections scoped to some jobs skip the rest.
    public var job: JobID? { event.job }

    /// The job a progress event is about, so an outbox can collapse older values of the same job.
    public var progressJob: JobID? {
        if case .progress(let job, _) = event { return job }
        return nil
    }
}
