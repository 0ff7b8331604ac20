import HeraldEngine

/// One frame waiting in a connection's outbox, with what the slow-client policy needs to know.
public struct OutboundFrame: Sendable {
    public enum Kind: Sendable, Equatable {
        /// A numbered event; `progressJob` is set for progress, which may be collapsed. `ts` is the
        /// event's `ts` (wall-clock microseconds since 1970), for the delivery-latency histogram; nil for
        /// an event replayed on resume, whose age measures how long the client was away, not the server.
        case event(seq: Int64, progressJob: JobID?, ts: Int64?, job: JobID?)
        /// A snapshot: everything before it in the outbox is superseded by it.
        case snapshot(seq: Int64)
        /// A reply to this connection's command.
        case reply
    }

    public let kind: Kind
    /// The complete frame (header and payload); shared, not copied, between connections.
    public let bytes: [UInt8]

    public init(kind: Kind, bytes: [UInt8]) {
        self.kind = kind
        self.bytes = bytes
    }

    /// The frame of a live numbered event: its JSON framed once, shared by every connection.
    public static func event(_ event: SequencedEvent) -> OutboundFrame {
        OutboundFrame(
            kind: .event(seq: event.seq, progressJob: event.progressJob, ts: event.ts, job: event.job),
            bytes: WebSocketFrame.text(event.json))
    }

    /// The frame of an event replayed on resume: not observed as delivery latency.
    public static func replayed(_ event: EncodedEvent) -> OutboundFrame {
        OutboundFrame(
            kind: .event(seq: event.seq, progressJob: event.progressJob, ts: nil, job: event.job), bytes: WebSocketFrame.text(event.json))
    }

    public var progressJob: JobID? {
        if case .event(_, let job, _, _) = kind { return job }
        return nil
    }

    /// The live event's `ts`, if this frame is one.
    public var eventTimestamp: Int64? {
        if case .event(_, _, let ts, _) = kind { return ts }
        return nil
    }
}
