import HeraldEngine

/// What a `SharedFrameRing` held when its writer last published: the chunks and the range of
/// entries (`firstIndex..<endIndex`) they cover. An immutable value: a service thread takes the
/// newest once per turn and its connections read frames through it with no lock. A view keeps its
/// chunks alive (ARC), so frames the ring evicted since stay readable through it until the view goes.
///
/// It answers as `FrameRing` does (cursors are entry indices, whole frames per copy), so a hub reads
/// either the same way. Thread: any; it crosses threads as a value.
public struct RingView: Sendable {
    /// Oldest first; each holds at least one entry, and `chunks[0].firstIndex == firstIndex`.
    let chunks: [FrameChunk]
    public let firstIndex: Int64
    public let endIndex: Int64
    /// One past the newest frame's last byte, counted over the life of the ring.
    let headByte: Int64

    init(chunks: [FrameChunk], firstIndex: Int64, endIndex: Int64, headByte: Int64) {
        self.chunks = chunks
        self.firstIndex = firstIndex
        self.endIndex = endIndex
        self.headByte = headByte
    }

    /// A ring with nothing in it yet.
    public static let empty = RingView(chunks: [], firstIndex: 0, endIndex: 0, headByte: 0)

    public var isEmpty: Bool { firstIndex == endIndex }
    public var count: Int { Int(endIndex - firstIndex) }
    /// Bytes of the frames the view covers.
    public var bytes: Int { isEmpty ? 0 : Int(headByte - entry(firstIndex).start) }
    /// The seq of the newest entry, if any.
    public var lastSeq: Int64? { isEmpty ? nil : entry(endIndex - 1).seq }
    public var firstSeq: Int64? { isEmpty ? nil : entry(firstIndex).seq }

    /// The position in `chunks` of the chunk holding `index` (`firstIndex..<endIndex`).
    private func chunkPosition(of index: Int64) -> Int {
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if chunks[middle].firstIndex <= index { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// One past the last entry of the chunk at `position` that the view covers.
    private func chunkEnd(_ position: Int) -> Int64 {
        position + 1 < chunks.count ? chunks[position + 1].firstIndex : endIndex
    }

    func entry(_ index: Int64) -> FrameChunk.Entry { chunks[chunkPosition(of: index)].entry(index) }

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

    /// The job records that `job` events from `index` to the end told of, oldest first (a hub learns
    /// job kinds from them). `index` is clamped to what the view covers.
    public func jobChanges(from index: Int64) -> [JobRecord] {
        var records: [JobRecord] = []
        var next = max(index, firstIndex)
        guard next < endIndex else { return records }
        var position = chunkPosition(of: next)
        while next < endIndex {
            let chunk = chunks[position]
            let end = chunkEnd(position)
            while next < end {
                if let change = chunk.entry(next).change { records.append(change.record) }
                next += 1
            }
            position += 1
        }
        return records
    }

    /// Appends whole frames from `index` on to `buffer` while it stays within `limit` bytes (at least
    /// one frame when the buffer is empty). Returns the next index, how many frames were taken, and
    /// the earliest `ts` among them. `index` must be covered (`firstIndex...endIndex`). Frames never
    /// span chunks, so a run within one chunk is one contiguous copy.
    public func copy(from index: Int64, limit: Int, into buffer: inout [UInt8]) -> (next: Int64, frames: Int, oldest: Int64?) {
        precondition(index >= firstIndex && index <= endIndex, "a cursor that fell off the ring")
        guard index < endIndex else { return (index, 0, nil) }
        var next = index
        var oldest: Int64?
        var position = chunkPosition(of: index)
        while next < endIndex {
            let chunk = chunks[position]
            let end = chunkEnd(position)
            let runStart = chunk.entry(next).offset
            var runLength = 0
            var full = false
            while next < end {
                let candidate = chunk.entry(next)
                if buffer.count + runLength + candidate.length > limit, !(buffer.isEmpty && runLength == 0) {
                    full = true
                    break
                }
                runLength += candidate.length
                // The minimum, not the first: events are in seq order, but the wall clock may step back.
                if candidate.ts < oldest ?? .max { oldest = candidate.ts }
                next += 1
            }
            buffer.append(contentsOf: UnsafeBufferPointer(start: chunk.bytes + runStart, count: runLength))
            if full { break }
            position += 1
        }
        return (next, Int(next - index), oldest)
    }

    /// As `copy(from:limit:into:)`, for a connection that sees only some jobs: frames whose job
    /// `admits` refuses are passed over (a scoped stream's `seq` has holes by design), frames without
    /// a job (news, workers) always are. Returns the index after the last frame looked at, so frames
    /// skipped are never looked at again.
    public func copy(
        from index: Int64, limit: Int, into buffer: inout [UInt8], admitting admits: (JobID) -> Bool
    ) -> (next: Int64, frames: Int, oldest: Int64?) {
        precondition(index >= firstIndex && index <= endIndex, "a cursor that fell off the ring")
        guard index < endIndex else { return (index, 0, nil) }
        var next = index
        var frames = 0
        var oldest: Int64?
        var position = chunkPosition(of: index)
        scan: while next < endIndex {
            let chunk = chunks[position]
            let end = chunkEnd(position)
            while next < end {
                let candidate = chunk.entry(next)
                guard let job = candidate.job, admits(job) else {
                    next += 1
                    continue
                }
                if buffer.count + candidate.length > limit, !buffer.isEmpty { break scan }
                buffer.append(contentsOf: UnsafeBufferPointer(start: chunk.bytes + candidate.offset, count: candidate.length))
                if candidate.ts < oldest ?? .max { oldest = candidate.ts }
                frames += 1
                next += 1
            }
            position += 1
        }
        return (next, frames, oldest)
    }
}
