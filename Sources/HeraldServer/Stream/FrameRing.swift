import HeraldEngine

/// The stream's events, each framed once, in one bounded ring shared by every connection: a
/// connection's backlog is a cursor into it (an entry index), not a copy. Appending past the capacity
/// drops the oldest entries; a connection whose cursor points before the oldest kept entry fell off
/// the tail (a slow client: it is resynced with a snapshot). Memory is the ring, whatever the clients do.
///
/// Entries are numbered from 0 for the life of the ring (`firstIndex..<endIndex` are kept); bytes
/// likewise (`tailByte..<headByte` are kept, at `position % capacity` in `storage`).
///
/// A plain value owned by the service thread.
public struct FrameRing {
    struct Entry {
        /// Absolute position of the frame's first byte.
        var start: Int64
        var length: Int
        var seq: Int64
        /// The event's `ts` (wall-clock microseconds), for the delivery-latency histogram.
        var ts: Int64
        /// The job the event is about; nil for news and workers. Scoped connections skip by it.
        var job: JobID?
    }

    public let capacityBytes: Int
    private var storage: [UInt8]
    /// Entries `firstIndex..<endIndex`, at `index % entries.count` (grown by doubling when full).
    private var entries: [Entry]
    public private(set) var firstIndex: Int64 = 0
    public private(set) var endIndex: Int64 = 0
    private var tailByte: Int64 = 0
    private var headByte: Int64 = 0

    public init(capacityBytes: Int) {
        self.capacityBytes = max(4096, capacityBytes)
        storage = [UInt8](repeating: 0, count: self.capacityBytes)
        entries = Array(repeating: Entry(start: 0, length: 0, seq: 0, ts: 0, job: nil), count: 1024)
    }

    public var isEmpty: Bool { firstIndex == endIndex }
    public var count: Int { Int(endIndex - firstIndex) }
    /// Bytes held now.
    public var bytes: Int { Int(headByte - tailByte) }
    /// The seq of the newest entry, if any.
    public var lastSeq: Int64? { isEmpty ? nil : entry(endIndex - 1).seq }
    public var firstSeq: Int64? { isEmpty ? nil : entry(firstIndex).seq }

    private func entry(_ index: Int64) -> Entry { entries[Int(index % Int64(entries.count))] }

    /// The length of the frame at `index` (kept: `firstIndex..<endIndex`).
    func frameLength(at index: Int64) -> Int { entry(index).length }

    /// Appends one whole frame, dropping the oldest entries to make room. A frame larger than the
    /// whole ring empties it and is not kept: every cursor falls off (and is resynced).
    public mutating func append(_ frame: [UInt8], seq: Int64, ts: Int64, job: JobID? = nil) {
        guard frame.count <= capacityBytes else {
            firstIndex = endIndex + 1
            endIndex = firstIndex
            tailByte = headByte
            return
        }
        while Int(headByte - tailByte) + frame.count > capacityBytes { dropOldest() }
        if count == entries.count { grow() }
        let start = headByte
        let offset = Int(start % Int64(capacityBytes))
        frame.withUnsafeBufferPointer { source in
            storage.withUnsafeMutableBufferPointer { target in
                let first = min(source.count, capacityBytes - offset)
                target.baseAddress!.advanced(by: offset).update(from: source.baseAddress!, count: first)
                if first < source.count {
                    target.baseAddress!.update(from: source.baseAddress!.advanced(by: first), count: source.count - first)
                }
            }
        }
        entries[Int(endIndex % Int64(entries.count))] = Entry(start: start, length: frame.count, seq: seq, ts: ts, job: job)
        endIndex += 1
        headByte += Int64(frame.count)
    }

    /// Forgets every entry (the engine's stream restarted with a new epoch, so seqs start again):
    /// indices go on growing, so no cursor of before can point into what comes next.
    public mutating func discardAll() {
        firstIndex = endIndex
        tailByte = headByte
    }

    private mutating func dropOldest() {
        let oldest = entry(firstIndex)
        firstIndex += 1
        tailByte = oldest.start + Int64(oldest.length)
        if isEmpty { tailByte = headByte }
    }

    private mutating func grow() {
        var larger = Array(repeating: Entry(start: 0, length: 0, seq: 0, ts: 0, job: nil), count: entries.count * 2)
        for index in firstIndex..<endIndex { larger[Int(index % Int64(larger.count))] = entry(index) }
        entries = larger
    }

    /// The index of the first kept entry with a seq above `seq` (`endIndex` when there is none), or nil
    /// when entries after `seq` were already dropped: a cursor there would skip events.
    public func index(after seq: Int64) -> Int64? {
        guard let first = firstSeq else { return endIndex }
        if seq + 1 < first { return nil }
        var low = firstIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if entry(middle).seq <= seq { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Bytes from `index` to the newest entry: a cursor's backlog (0 for a cursor that fell off).
    public func backlogBytes(from index: Int64) -> Int {
        guard index >= firstIndex, index < endIndex else { return 0 }
        return Int(headByte - entry(index).start)
    }

    /// Appends whole frames from `index` on to `buffer` while it stays within `limit` bytes (at least
    /// one frame when the buffer is empty). Returns the next index, how many frames were taken, and
    /// the earliest `ts` among them. `index` must be kept (`firstIndex...endIndex`).
    public func copy(from index: Int64, limit: Int, into buffer: inout [UInt8]) -> (next: Int64, frames: Int, oldest: Int64?) {
        precondition(index >= firstIndex && index <= endIndex, "a cursor that fell off the ring")
        var next = index
        var oldest: Int64?
        var end = next
        var total = 0
        // Find the run of whole frames that fits, then copy it in at most two slices.
        while end < endIndex {
            let candidate = entry(end)
            if buffer.count + total + candidate.length > limit, !(buffer.isEmpty && total == 0) { break }
            total += candidate.length
            // The minimum, not the first: events are in seq order, but the wall clock may step back.
            if candidate.ts < oldest ?? .max { oldest = candidate.ts }
            end += 1
        }
        guard end > next else { return (next, 0, nil) }
        let start = Int(entry(next).start % Int64(capacityBytes))
        let first = min(total, capacityBytes - start)
        buffer.append(contentsOf: storage[start..<(start + first)])
        if first < total { buffer.append(contentsOf: storage[0..<(total - first)]) }
        let frames = Int(end - next)
        next = end
        return (next, frames, oldest)
    }

    /// As `copy(from:limit:into:)`, for a connection that sees only some jobs: frames whose job
    /// `admits` refuses are passed over (a scoped stream's `seq` has holes by design), frames without
    /// a job (news, workers) always are. Runs of admitted frames are copied whole. Returns the index
    /// after the last frame looked at, so frames skipped are never looked at again.
    public func copy(
        from index: Int64, limit: Int, into buffer: inout [UInt8], admitting admits: (JobID) -> Bool
    ) -> (next: Int64, frames: Int, oldest: Int64?) {
        precondition(index >= firstIndex && index <= endIndex, "a cursor that fell off the ring")
        var next = index
        var frames = 0
        var oldest: Int64?
        while next < endIndex {
            let candidate = entry(next)
            guard let job = candidate.job, admits(job) else {
                next += 1
                continue
            }
            if buffer.count + candidate.length > limit, !buffer.isEmpty { break }
            let start = Int(candidate.start % Int64(capacityBytes))
            let first = min(candidate.length, capacityBytes - start)
            buffer.append(contentsOf: storage[start..<(start + first)])
            if first < candidate.length { buffer.append(contentsOf: storage[0..<(candidate.length - first)]) }
            if candidate.ts < oldest ?? .max { oldest = candidate.ts }
            frames += 1
            next += 1
        }
        return (next, frames, oldest)
    }
}
