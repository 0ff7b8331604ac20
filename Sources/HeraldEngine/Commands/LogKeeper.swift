/// The last `capacity` output lines of one command job, for paging: the newest lines survive a
/// flood, and memory stays bounded however much a program writes. Lines are numbered from the
/// oldest kept one. Threads: appended on the job's worker thread, paged on any thread; guarded by
/// one lock.
public final class LogKeeper: Sendable {
    public let capacity: Int
    private let ring: Protected<Ring>

    private struct Ring {
        var lines: [LogLine] = []
        /// Index in `lines` of the oldest line once the ring is full.
        var start = 0
        /// Lines that fell off the front: the oldest kept line is line `dropped` of the whole output.
        var dropped = 0
    }

    public init(capacity: Int = 10_000) {
        precondition(capacity > 0, "a log keeper needs room for a line")
        self.capacity = capacity
        self.ring = Protected(Ring())
    }

    /// Keeps `lines` from a file written earlier; the first of them was line `first` of the output.
    public convenience init(lines: [LogLine], first: Int = 0, capacity: Int = 10_000) {
        self.init(capacity: capacity)
        ring.withLock { $0.dropped = first }
        for line in lines.suffix(capacity) { append(line) }
    }

    public func append(_ line: LogLine) {
        ring.withLock { ring in
            if ring.lines.count < capacity {
                ring.lines.append(line)
            } else {
                ring.lines[ring.start] = line
                ring.start = (ring.start + 1) % capacity
                ring.dropped += 1
            }
        }
    }

    public var count: Int { ring.withLock { $0.lines.count } }

    /// The number the next appended line gets: lines are numbered over the whole output, the oldest
    /// kept one being `first` of a page.
    public var nextNumber: Int { ring.withLock { $0.dropped + $0.lines.count } }

    /// Up to `limit` lines from `offset` (0 is the oldest kept line), how many are kept, and which line
    /// of the whole output the oldest kept one is (`first`: a follower that remembers absolute line
    /// numbers is not fooled when old lines fall off).
    public func page(offset: Int, limit: Int) -> (first: Int, total: Int, lines: [LogLine]) {
        ring.withLock { ring in
            let total = ring.lines.count
            guard offset < total else { return (ring.dropped, total, []) }
            let end = min(total, offset + limit)
            return (ring.dropped, total, (offset..<end).map { ring.lines[(ring.start + $0) % total] })
        }
    }

    /// Every kept line, oldest first, and the number of the first.
    public func all() -> (first: Int, lines: [LogLine]) {
        let page = page(offset: 0, limit: capacity)
        return (page.first, page.lines)
    }
}
