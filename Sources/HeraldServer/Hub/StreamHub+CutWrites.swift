import HeraldEngine

/// A write the socket cut short. The kernel may take only part of a batch whatever the socket's own
/// buffer (under TCP memory pressure, with thousands of sockets behind), and the rest of a batch of
/// `writeBatchBytes` kept for each such connection came to hundreds of megabytes at 10,000
/// connections (docs/benchmarks.md, "Several service threads"). When the cut falls among frames of
/// the ring, the whole frames after the cut one go back to the ring instead: the connection's cursor
/// moves back to them, and only the rest of the cut frame is left to the transport. They are copied
/// again when the socket takes bytes, or, if the ring dropped them meanwhile, the connection gets a
/// snapshot as any connection that fell behind. Thread: the service thread.
extension StreamHub {
    /// What a batch holds of the ring: from `offset` in the batch on, the frames `first..<end`,
    /// whole, then a ping if `endsWithPing`. Kept for unscoped connections only (a scoped one's frames
    /// are not consecutive in the ring).
    struct RingBatch {
        let connection: ConnectionID
        let offset: Int
        let first: Int64
        let end: Int64
        var endsWithPing: Bool
    }

    /// The transport sent only `sent` of the `count` bytes of the batch `writable` last gave for `id`.
    /// Returns how many bytes after `sent` the transport must still send: the rest of the frame the
    /// cut fell in (0 when it fell between frames), the frames after it going back to the ring; or
    /// all that is left when the cut fell before the ring's frames or the batch ends with a ping.
    /// Call it at once after that `writable`, before any other.
    public mutating func cutShort(_ id: ConnectionID, sent: Int, of count: Int) -> Int {
        let rest = count - sent
        guard let batch = lastRingBatch, batch.connection == id, !batch.endsWithPing, sent >= batch.offset,
            let connection = connections[id], connection.cursor == batch.end, batch.first >= ringFirstIndex
        else { return rest }
        lastRingBatch = nil
        var offset = batch.offset
        var index = batch.first
        while index < batch.end {
            let length = ringFrameLength(at: index)
            if offset + length > sent { break }
            offset += length
            index += 1
        }
        guard index < batch.end else { return rest }
        // `index` is the frame the cut fell in, or, when the cut fell right before it, the next to send.
        let kept = offset == sent ? 0 : ringFrameLength(at: index)
        let resume = offset == sent ? index : index + 1
        guard resume < batch.end else { return rest }
        connection.cursor = resume
        metrics.framesSent -= Int(batch.end - resume)
        metrics.bytesSent -= count - (offset + kept)
        recountBacklog(of: connection)
        return offset + kept - sent
    }
}
