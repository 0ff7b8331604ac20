import HeraldEngine

/// A connection's own frames waiting to be written: replies to its commands, its snapshot, the events
/// replayed for its resume. The live stream is not here: it is the shared `FrameRing`, and the
/// connection holds a cursor into it. Also counts the connection's resyncs: one that needs
/// `resyncLimit` of them within `resyncWindow` seconds is closed (docs/protocol.md, "Slow clients").
/// A plain value owned by the service thread.
public struct Outbox: Sendable {
    /// Unsent frames, stored beside `head` rather than read as `frames.count - head`: the fan-out asks
    /// every connection whether it is empty on every event, and `frames.count` lives in the array's
    /// heap buffer, one more cache line per connection (a cache miss each, measured in s8's profile).
    /// It and `pendingBytes` come first, for the same reason (`HubConnection`'s layout).
    public private(set) var count = 0
    public private(set) var pendingBytes = 0
    /// Index of the first unsent frame in `frames` (popping from the front is O(1) this way).
    private var head = 0
    public private(set) var frames: [OutboundFrame] = []
    public let capBytes: Int
    public let resyncLimit: Int
    public let resyncWindow: Double
    private var resyncTimes: [Double] = []

    public init(capBytes: Int, resyncLimit: Int = 3, resyncWindow: Double = 10) {
        self.capBytes = capBytes
        self.resyncLimit = resyncLimit
        self.resyncWindow = resyncWindow
    }

    public var isEmpty: Bool { count == 0 }

    /// What the caller must do after the connection fell behind.
    public enum Pressure: Equatable {
        /// Send a fresh snapshot.
        case resync
        /// Too many resyncs in the window: close the connection (code 4008).
        case close
    }

    public mutating func append(_ frame: OutboundFrame) {
        frames.append(frame)
        pendingBytes += frame.bytes.count
        count += 1
    }

    /// Counts one resync at `now` (seconds, monotonic) and says whether the connection may go on.
    public mutating func noteResync(now: Double) -> Pressure {
        resyncTimes.removeAll { now - $0 > resyncWindow }
        resyncTimes.append(now)
        return resyncTimes.count >= resyncLimit ? .close : .resync
    }

    /// Drops every unsent event and snapshot; replies stay (their requester waits for them).
    /// Used by the policy above, and by resume, resync and shutdown, which refill or close the stream.
    public mutating func discardEvents() {
        replace(with: frames[head...].filter { $0.kind == .reply })
    }

    private mutating func replace(with remaining: [OutboundFrame]) {
        frames = remaining
        head = 0
        pendingBytes = remaining.reduce(0) { $0 + $1.bytes.count }
        count = remaining.count
    }

    /// Drops everything unsent, replies too: the connection is about to be closed.
    public mutating func removeAll() { replace(with: []) }

    /// Takes whole frames from the front, up to `limit` bytes (at least one frame), for one write.
    /// Returns the earliest `ts` of the live events taken (nil if none): the batch's worst case, which
    /// is all the delivery-latency histogram observes, so a batch costs one comparison per frame.
    @discardableResult
    public mutating func takeBatch(limit: Int, into buffer: inout [UInt8]) -> Int64? {
        buffer.removeAll(keepingCapacity: true)
        guard count > 0 else { return nil }
        var oldest: Int64?
        while head < frames.count {
            let frame = frames[head]
            if !buffer.isEmpty && buffer.count + frame.bytes.count > limit { break }
            buffer.append(contentsOf: frame.bytes)
            pendingBytes -= frame.bytes.count
            head += 1
            count -= 1
            // The minimum, not the first: events are in seq order, but the wall clock may have stepped back.
            if let ts = frame.eventTimestamp, ts < oldest ?? .max { oldest = ts }
        }
        if head == frames.count {
            frames.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 {
            frames.removeFirst(head)
            head = 0
        }
        return oldest
    }
}
