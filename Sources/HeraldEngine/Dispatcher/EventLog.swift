/// The last `capacity` events, and at most `maxBytes` of their encodings, to answer "what came after
/// seq N in epoch E" for a client that reconnects. A ring buffer: memory stays bounded however long
/// the server runs, and however large the events are (a command job's `log` events can be big). It
/// keeps encodings only (`EncodedEvent`), so `maxBytes` is close to what it holds: 16 MiB of
/// encodings is 16 MiB and under 100 bytes per event.
/// A plain value owned by the dispatcher queue.
public struct EventLog: Sendable {
    public let capacity: Int
    public let maxBytes: Int
    private var ring: [EncodedEvent?]
    private var start = 0
    public private(set) var count = 0
    public private(set) var bytes = 0

    public init(capacity: Int, maxBytes: Int = 16 << 20) {
        precondition(capacity > 0, "the event log needs room for at least one event")
        self.capacity = capacity
        self.maxBytes = maxBytes
        self.ring = Array(repeating: nil, count: capacity)
    }

    public mutating func append(_ event: SequencedEvent) {
        if count == capacity { dropOldest() }
        ring[(start + count) % capacity] = EncodedEvent(event)
        count += 1
        bytes += event.json.count
        // Over the byte bound, older events go (the newest always stays).
        while bytes > maxBytes, count > 1 { dropOldest() }
    }

    private mutating func dropOldest() {
        bytes -= ring[start]?.json.count ?? 0
        ring[start] = nil
        start = (start + 1) % capacity
        count -= 1
    }

    public var oldestSeq: Int64? { count == 0 ? nil : ring[start]?.seq }
    public var newestSeq: Int64? { count == 0 ? nil : ring[(start + count - 1) % capacity]?.seq }

    /// The events after `seq` given that the stream is now at `currentSeq`; nil when some of them are
    /// no longer kept, or `seq` is in the future, so the caller must take a snapshot instead.
    public func events(after seq: Int64, currentSeq: Int64) -> [EncodedEvent]? {
        if seq == currentSeq { return [] }
        guard seq < currentSeq, seq >= 0, let oldest = oldestSeq, seq >= oldest - 1 else { return nil }
        let skip = Int(seq - (oldest - 1))
        return (skip..<count).map { ring[(start + $0) % capacity]! }
    }
}
