/// An event as the stream carries it: its number, its time, its encoding, and, for progress, the job
/// it is about (so an outbox can collapse older values of the same job). What the resume log keeps and
/// a resume replays: the encoding is all a viewer is sent, so the typed value (`SequencedEvent.event`,
/// about one and a half times the encoding again) is not kept, and what the log holds is what its byte
/// bound counts, whatever the mix of events.
public struct EncodedEvent: Sendable, Equatable {
    public let seq: Int64
    /// As `SequencedEvent.ts`: wall-clock microseconds since the Unix epoch.
    public let ts: Int64
    public let progressJob: JobID?
    /// The job the event is about; nil for news and workers (`SequencedEvent.job`).
    public let job: JobID?
    public let json: [UInt8]

    public init(_ event: SequencedEvent) {
        seq = event.seq
        ts = event.ts
        progressJob = event.progressJob
        job = event.job
        json = event.json
    }
}
