import HeraldEngine

/// One frame waiting in a connection's outbox, with what the slow-client policy needs to know.
public struct OutboundFrame: Sendable {
    public enum Kind: Sendable, Equatable {
        /// A numbered event; `progressJob` is set for progress, which may be collapsed.
        case event(seq: Int64, progressJob: JobID?)
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

    /// The frame of a numbered event: its JSON framed once, shared by every connection.
    public static func event(_ event: SequencedEvent) -> OutboundFrame {
        OutboundFrame(kind: .event(seq: event.seq, progressJob: event.progressJob), bytes: WebSocketFrame.text(event.json))
    }

    public var progressJob: JobID? {
        if case .event(_, let job) = kind { return job }
        return nil
    }
}
