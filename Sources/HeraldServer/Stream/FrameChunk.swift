import HeraldEngine

/// One block of a `SharedFrameRing`: the bytes of whole frames and their index entries, allocated
/// once at a fixed size and never moved or grown. That is what lets readers on other threads read
/// the frames a published `RingView` covers while the writer appends past them, with no lock.
///
/// Threads: `append` and the write counters (`usedBytes`, `entryCount`) belong to the ring's one
/// writer. Readers reach a chunk only through a `RingView` and read only entries below the view's
/// `endIndex`, which the writer wrote before it published the view under the ring's mutex.
final class FrameChunk: @unchecked Sendable {
    // @unchecked Sendable: the writer writes only past every published view's end, and views are
    // published under a mutex (a happens-before edge); readers read only below a view's end.

    struct Entry {
        /// Where the frame's bytes begin in `bytes`.
        var offset: Int
        var length: Int
        /// The frame's first byte counted over the life of the ring (for backlogs in bytes).
        var start: Int64
        var seq: Int64
        /// The event's `ts` (wall-clock microseconds), for the delivery-latency histogram.
        var ts: Int64
        /// The job the event is about; nil for news and workers. Scoped connections skip by it.
        var job: JobID?
        /// The job as a `job` event told it (nil for other events): each service thread's hub learns
        /// job kinds from it (for kind scopes), since the hubs do not see the events themselves.
        var change: JobChange?
    }

    /// A job record carried beside its frame, boxed so that entries of other events stay small.
    final class JobChange: Sendable {
        let record: JobRecord
        init(_ record: JobRecord) { self.record = record }
    }

    /// The ring index of the chunk's first entry: fixed before any view can hold the chunk.
    let firstIndex: Int64
    let byteCapacity: Int
    let entryCapacity: Int
    let bytes: UnsafeMutablePointer<UInt8>
    let entries: UnsafeMutablePointer<Entry>
    /// Writer only.
    private(set) var usedBytes = 0
    /// Writer only (and `deinit`, once no view holds the chunk).
    private(set) var entryCount = 0

    /// Both blocks are allocated whole but not touched: pages the writer never reaches are never
    /// made resident.
    init(firstIndex: Int64, byteCapacity: Int, entryCapacity: Int) {
        self.firstIndex = firstIndex
        self.byteCapacity = byteCapacity
        self.entryCapacity = entryCapacity
        bytes = .allocate(capacity: byteCapacity)
        entries = .allocate(capacity: entryCapacity)
    }

    deinit {
        entries.deinitialize(count: entryCount)
        entries.deallocate()
        bytes.deallocate()
    }

    /// Whether a frame of `length` bytes still fits. Writer only.
    func fits(_ length: Int) -> Bool { entryCount < entryCapacity && usedBytes + length <= byteCapacity }

    /// Copies one frame in after the last. The caller checked `fits`. Writer only.
    func append(_ frame: [UInt8], start: Int64, seq: Int64, ts: Int64, job: JobID?, change: JobChange?) {
        frame.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { (bytes + usedBytes).update(from: base, count: source.count) }
        }
        (entries + entryCount).initialize(
            to: Entry(offset: usedBytes, length: frame.count, start: start, seq: seq, ts: ts, job: job, change: change))
        usedBytes += frame.count
        entryCount += 1
    }

    /// The entry at ring index `index`, which a view covers. Any thread holding such a view.
    @inline(__always)
    func entry(_ index: Int64) -> Entry { entries[Int(index - firstIndex)] }
}
