import HeraldEngine

/// The stream's events framed once, in one bounded ring that every service thread reads: one copy of
/// each frame for all threads (docs/architecture.md, "Several service threads").
///
/// One writer (the thread that posts ordered events) appends frames into fixed-size `FrameChunk`s,
/// each allocated once and never moved, and publishes an immutable `RingView` under a short mutex.
/// A reader takes the newest view (one lock) and reads any frame it covers with no lock, while the
/// writer goes on appending above the view's end. Eviction drops whole chunks from the oldest end;
/// a view taken earlier keeps them alive, so they are freed by ARC when the last such view goes.
/// Memory is therefore the capacity plus, at most, the chunks one stale view per reader still holds.
///
/// A frame never spans chunks: one larger than a chunk gets a chunk of its own size; one larger than
/// the whole ring empties it and is not kept (every cursor falls off, and is resynced). Eviction
/// being by chunk, the ring keeps between `capacityBytes - chunkBytes` and `capacityBytes` of frames.
///
/// Threads: `append`, `discardAll`, `publish`, `endIndex` and `writerView` on the writer only (the
/// state they touch is confined to it); `view` on any thread (guarded by `published`'s mutex).
public final class SharedFrameRing: @unchecked Sendable {
    // @unchecked Sendable: the writer's state is confined to the writer thread (see above); what
    // readers see is the `RingView` in `published`, behind its mutex.

    public let capacityBytes: Int
    /// The size of a chunk (a frame larger than this gets one of its own).
    public let chunkBytes: Int
    /// Writer only.
    private var chunks: [FrameChunk] = []
    private var firstIndex: Int64 = 0
    /// One past the newest entry appended (published or not). Writer only.
    public private(set) var endIndex: Int64 = 0
    private var headByte: Int64 = 0
    /// Bytes of the chunks held (their capacities, used or not). Writer only.
    private var allocatedBytes = 0
    /// The newest view the writer published. Any thread, under the mutex.
    private let published = Protected(RingView.empty)

    /// `chunkBytes` defaults to a sixteenth of the capacity (at least 4 KiB, at most 1 MiB): small
    /// enough that evicting one loses little, large enough that a view is a short array.
    public init(capacityBytes: Int, chunkBytes: Int? = nil) {
        self.capacityBytes = max(4096, capacityBytes)
        self.chunkBytes = min(self.capacityBytes, max(256, chunkBytes ?? min(1 << 20, max(4096, self.capacityBytes / 16))))
    }

    /// Index entries a chunk of `bytes` has room for: one per 64 bytes (an event's frame is larger);
    /// a chunk whose entries run out first is closed early.
    private static func entryCapacity(forBytes bytes: Int) -> Int { max(16, bytes / 64) }

    /// Appends one whole frame, evicting the oldest chunks to make room. Not visible to readers until
    /// `publish`. `record`: the job a `job` event tells of (readers learn kinds from it). Writer only.
    public func append(_ frame: [UInt8], seq: Int64, ts: Int64, job: JobID? = nil, record: JobRecord? = nil) {
        guard frame.count <= capacityBytes else {
            chunks.removeAll()
            allocatedBytes = 0
            endIndex += 1
            firstIndex = endIndex
            return
        }
        if chunks.last?.fits(frame.count) != true {
            let size = max(chunkBytes, frame.count)
            while allocatedBytes + size > capacityBytes, !chunks.isEmpty {
                let oldest = chunks.removeFirst()
                allocatedBytes -= oldest.byteCapacity
                firstIndex = chunks.first?.firstIndex ?? endIndex
            }
            chunks.append(FrameChunk(firstIndex: endIndex, byteCapacity: size, entryCapacity: Self.entryCapacity(forBytes: size)))
            allocatedBytes += size
            if chunks.count == 1 { firstIndex = endIndex }
        }
        chunks[chunks.count - 1].append(frame, start: headByte, seq: seq, ts: ts, job: job, change: record.map(FrameChunk.JobChange.init))
        endIndex += 1
        headByte += Int64(frame.count)
    }

    /// Forgets every entry (the engine's stream restarted with a new epoch, so seqs start again):
    /// indices go on growing, so no cursor of before can point into what comes next. Writer only.
    public func discardAll() {
        chunks.removeAll()
        allocatedBytes = 0
        firstIndex = endIndex
    }

    /// What the writer has appended, published or not. Writer only.
    public var writerView: RingView {
        RingView(chunks: chunks, firstIndex: firstIndex, endIndex: endIndex, headByte: headByte)
    }

    /// Makes everything appended so far visible to readers, and returns it. Writer only.
    @discardableResult
    public func publish() -> RingView {
        let view = writerView
        // The view replaced is released after the lock: when it was the last to hold evicted
        // chunks, freeing them is no work for the mutex.
        let replaced = published.withLock { published in
            defer { published = view }
            return published
        }
        _ = replaced
        return view
    }

    /// The newest published view. Any thread: one short lock.
    public var view: RingView { published.withLock { $0 } }
}
