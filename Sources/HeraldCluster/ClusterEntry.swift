import HeraldEngine
import HeraldRedis

/// One entry of the shared stream, decoded: its seq, the node that made it, and the event with the
/// `ts` its node gave it. A value that crosses from the tail thread to the view queue.
struct ClusterEntry: Sendable {
    let seq: Int64
    let node: String
    let ts: Int64
    let event: EngineEvent
    /// The seq its node's own dispatcher gave it (that node's order, not the stream's).
    let localSeq: Int64

    /// From the entry's fields (`n` node, `e` encoding); nil when they do not decode.
    init?(seq: Int64, fields: [RedisReply]) {
        var node: String?
        var encoding: [UInt8]?
        for index in stride(from: 0, to: fields.count - 1, by: 2) {
            switch fields[index].string {
            case "n": node = fields[index + 1].string
            case "e": encoding = fields[index + 1].bytes
            default: break
            }
        }
        guard let node, let encoding, let decoded = try? WireDecoder.event(encoding) else { return nil }
        self.seq = seq
        self.node = node
        self.ts = decoded.ts
        self.event = decoded.event
        self.localSeq = decoded.seq
    }
}
