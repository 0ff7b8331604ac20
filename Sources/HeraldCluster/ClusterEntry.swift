import HeraldEngine
import HeraldRedis

/// One event of the shared stream, decoded: its seq, the node that made it, and the event with the
/// `ts` its node gave it. A value that crosses from the tail thread to the view queue.
///
/// A stream entry holds one event or a whole batch of one node's (`AppendScript`): its id is
/// `<first seq>-0`, its `n` the node, its `e` the events' encodings joined by newlines (a JSON
/// encoding escapes every control byte, so holds none), numbered on from the first seq. So Redis adds
/// and hands out one entry per batch rather than per event.
struct ClusterEntry: Sendable {
    let seq: Int64
    let node: String
    let ts: Int64
    let event: EngineEvent
    /// The seq its node's own dispatcher gave it (that node's order, not the stream's).
    let localSeq: Int64

    private init(seq: Int64, node: String, decoded: (seq: Int64, ts: Int64, event: EngineEvent)) {
        self.seq = seq
        self.node = node
        self.ts = decoded.ts
        self.event = decoded.event
        self.localSeq = decoded.seq
    }

    /// The most events one entry holds: the publisher's batch bound. A reader that wants the event of
    /// seq S finds it in an entry whose id is at most this many below S.
    static let maxPerEntry = Int64(ClusterBatchBound.publisher.count)

    /// The events of the entry whose first seq is `firstSeq`, from its fields (`n` node, `e` the
    /// encodings); nil when they do not decode.
    static func events(firstSeq: Int64, fields: [RedisReply]) -> [ClusterEntry]? {
        var node: String?
        var encodings: [UInt8]?
        for index in stride(from: 0, to: fields.count - 1, by: 2) {
            switch fields[index].string {
            case "n": node = fields[index + 1].string
            case "e": encodings = fields[index + 1].bytes
            default: break
            }
        }
        guard let node, let encodings, !encodings.isEmpty else { return nil }
        var events: [ClusterEntry] = []
        var seq = firstSeq
        for encoding in encodings.split(separator: 0x0A, omittingEmptySubsequences: false) {
            guard let decoded = try? WireDecoder.event(Array(encoding)) else { return nil }
            events.append(ClusterEntry(seq: seq, node: node, decoded: decoded))
            seq += 1
        }
        return events
    }
}
