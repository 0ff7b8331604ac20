import Foundation
import HeraldEngine
@testable import HeraldServer
import XCTest

/// The ring every service thread shares: frames across chunk boundaries, views that see only what
/// was published, eviction by chunk while a stale view still reads what it covers, scoped copies,
/// and readers on other threads while the writer appends (run under TSan by `make test-tsan`).
final class SharedFrameRingTests: XCTestCase {
    /// A frame whose bytes tell its seq: the first eight bytes are the seq, the rest follow from it.
    private static func frame(_ seq: Int64, size: Int = 100) -> [UInt8] {
        withUnsafeBytes(of: seq.littleEndian, Array.init) + (8..<size).map { UInt8(truncatingIfNeeded: Int(seq) &* 31 &+ $0) }
    }

    private func frame(_ seq: Int64, size: Int = 100) -> [UInt8] { Self.frame(seq, size: size) }

    /// Reads every frame from `cursor` to the view's end, `limit` bytes at a time.
    private func readAll(_ view: RingView, from cursor: Int64, limit: Int) -> [UInt8] {
        var cursor = cursor
        var all: [UInt8] = []
        var buffer: [UInt8] = []
        while cursor < view.endIndex {
            buffer.removeAll()
            let taken = view.copy(from: cursor, limit: limit, into: &buffer)
            XCTAssertGreaterThan(taken.frames, 0)
            all += buffer
            cursor = taken.next
        }
        return all
    }

    func testCopiesWholeFramesAcrossChunkBoundaries() {
        // 1000-byte chunks hold 6 frames of 150 bytes: a batch of 1000 bytes crosses a boundary.
        let ring = SharedFrameRing(capacityBytes: 64_000, chunkBytes: 1000)
        for seq in Int64(1)...100 { ring.append(frame(seq, size: 150), seq: seq, ts: 1000 - seq) }
        let view = ring.publish()
        XCTAssertEqual(view.count, 100)
        XCTAssertEqual(view.chunks.count, 17)
        XCTAssertEqual([view.firstSeq, view.lastSeq], [1, 100])
        var buffer: [UInt8] = []
        let taken = view.copy(from: 4, limit: 1000, into: &buffer)
        XCTAssertEqual(taken.frames, 6, "as many whole frames as fit, from two chunks")
        XCTAssertEqual(taken.next, 10)
        XCTAssertEqual(taken.oldest, 1000 - 10, "the earliest ts of the batch")
        XCTAssertEqual(buffer, (Int64(5)...10).flatMap { frame($0, size: 150) })
        XCTAssertEqual(readAll(view, from: 0, limit: 1000), (Int64(1)...100).flatMap { frame($0, size: 150) })
        XCTAssertEqual(view.backlogBytes(from: 90), 1500)
    }

    func testAViewSeesOnlyWhatWasPublished() {
        let ring = SharedFrameRing(capacityBytes: 64_000, chunkBytes: 1000)
        XCTAssertTrue(ring.view.isEmpty)
        for seq in Int64(1)...3 { ring.append(frame(seq), seq: seq, ts: 0) }
        XCTAssertTrue(ring.view.isEmpty, "appended, not yet published")
        XCTAssertEqual(ring.endIndex, 3, "the writer knows its end before publishing")
        ring.publish()
        let before = ring.view
        ring.append(frame(4), seq: 4, ts: 0)
        XCTAssertEqual(before.endIndex, 3)
        XCTAssertEqual(readAll(before, from: 0, limit: 10_000), (Int64(1)...3).flatMap { frame($0) })
        XCTAssertEqual(ring.publish().lastSeq, 4)
    }

    func testAStaleViewReadsEvictedChunksUntilItGoes() {
        let ring = SharedFrameRing(capacityBytes: 4000, chunkBytes: 1000)
        for seq in Int64(1)...9 { ring.append(frame(seq), seq: seq, ts: 0) }
        var stale: RingView? = ring.publish()
        weak let firstChunk = stale?.chunks.first
        XCTAssertNotNil(firstChunk)
        // 4 chunks of 9 frames each: 40 more frames evict every chunk the stale view holds.
        for seq in Int64(10)...49 { ring.append(frame(seq), seq: seq, ts: 0) }
        let fresh = ring.publish()
        XCTAssertGreaterThan(fresh.firstIndex, 8, "the ring evicted what the stale view covers")
        XCTAssertLessThanOrEqual(fresh.chunks.count * 1000, 4000, "the ring stays within its capacity")
        XCTAssertEqual(fresh.firstIndex, fresh.chunks[0].firstIndex, "eviction is by whole chunks")
        XCTAssertEqual(readAll(stale!, from: 0, limit: 250), (Int64(1)...9).flatMap { frame($0) }, "the stale view still reads")
        XCTAssertNotNil(firstChunk, "held by the stale view")
        stale = nil
        XCTAssertNil(firstChunk, "freed once the last view holding it went")
        XCTAssertEqual(readAll(fresh, from: fresh.firstIndex, limit: 250), (fresh.firstSeq!...49).flatMap { frame($0) })
    }

    func testCursorsFindTheFirstEventAfterASeqAndFallOffTheTail() {
        let ring = SharedFrameRing(capacityBytes: 4000, chunkBytes: 1000)
        XCTAssertEqual(ring.publish().index(after: 7), 0, "an empty ring: the next entry")
        for seq in Int64(10)...20 { ring.append(frame(seq), seq: seq, ts: 0) }
        let view = ring.publish()
        XCTAssertEqual(view.index(after: 9), 0)
        XCTAssertEqual(view.index(after: 14), 5, "found across a chunk boundary (9 frames a chunk)")
        XCTAssertEqual(view.index(after: 20), view.endIndex)
        XCTAssertNil(view.index(after: 5), "events 6 to 9 are not kept: a cursor would skip them")
        for seq in Int64(21)...80 { ring.append(frame(seq), seq: seq, ts: 0) }
        let later = ring.publish()
        XCTAssertLessThan(view.firstIndex, later.firstIndex, "a cursor at the old tail fell off")
        XCTAssertEqual(later.backlogBytes(from: view.firstIndex), 0)
    }

    func testLargeFramesGetAChunkOfTheirOwnOrEmptyTheRing() {
        let ring = SharedFrameRing(capacityBytes: 8000, chunkBytes: 1000)
        ring.append(frame(1), seq: 1, ts: 0)
        ring.append(frame(2, size: 3000), seq: 2, ts: 0)
        ring.append(frame(3), seq: 3, ts: 0)
        let view = ring.publish()
        XCTAssertEqual(view.count, 3)
        XCTAssertEqual(view.chunks.map(\.byteCapacity), [1000, 3000, 1000])
        XCTAssertEqual(readAll(view, from: 0, limit: 100), frame(1) + frame(2, size: 3000) + frame(3), "a large frame goes out alone")
        ring.append(frame(4, size: 9000), seq: 4, ts: 0)
        let emptied = ring.publish()
        XCTAssertTrue(emptied.isEmpty)
        XCTAssertLessThan(view.endIndex, emptied.firstIndex, "a cursor waiting for it fell off: it will be resynced")
        ring.append(frame(5), seq: 5, ts: 0)
        XCTAssertEqual(readAll(ring.publish(), from: emptied.firstIndex, limit: 100), frame(5))
    }

    func testDiscardAllKeepsIndicesGrowing() {
        let ring = SharedFrameRing(capacityBytes: 8000, chunkBytes: 1000)
        for seq in Int64(1)...5 { ring.append(frame(seq), seq: seq, ts: 0) }
        ring.discardAll()
        ring.append(frame(1), seq: 1, ts: 0)
        let view = ring.publish()
        XCTAssertEqual([view.firstIndex, view.endIndex], [5, 6], "no cursor of the old epoch points into the new one")
        XCTAssertEqual(view.index(after: 0), 5)
    }

    func testScopedCopySkipsOtherJobsAcrossChunks() {
        let ring = SharedFrameRing(capacityBytes: 64_000, chunkBytes: 1000)
        let mine = JobID("j-mine")
        for seq in Int64(1)...40 {
            ring.append(frame(seq), seq: seq, ts: seq, job: seq % 4 == 0 ? mine : seq % 4 == 1 ? nil : JobID("j-other"))
        }
        let view = ring.publish()
        var cursor = view.firstIndex
        var seen: [UInt8] = []
        var buffer: [UInt8] = []
        while cursor < view.endIndex {
            buffer.removeAll()
            let taken = view.copy(from: cursor, limit: 250, into: &buffer) { $0 == mine }
            XCTAssertLessThanOrEqual(taken.frames, 2, "whole frames within the limit")
            seen += buffer
            cursor = taken.next
        }
        XCTAssertEqual(seen, stride(from: Int64(4), through: 40, by: 4).flatMap { frame($0) }, "only its job, in order")
        var none: [UInt8] = []
        let skipped = view.copy(from: 0, limit: 250, into: &none) { _ in false }
        XCTAssertEqual([skipped.next, Int64(skipped.frames)], [view.endIndex, 0], "frames skipped are not looked at again")
    }

    /// Two readers follow the ring from other threads while the writer appends and publishes: each
    /// reads every frame once, in order, with the bytes the writer wrote (TSan checks the sharing).
    func testReadersOnOtherThreadsSeeEveryFrameInOrder() {
        let ring = SharedFrameRing(capacityBytes: 1 << 20, chunkBytes: 4096)
        let last: Int64 = 3000
        let readers = 2
        let done = DispatchGroup()
        let results = Protected([[Int64]](repeating: [], count: readers))
        for reader in 0..<readers {
            done.enter()
            Thread.detachNewThread {
                var cursor: Int64 = 0
                var seqs: [Int64] = []
                var buffer: [UInt8] = []
                while seqs.last != last {
                    let view = ring.view
                    while cursor < view.endIndex {
                        buffer.removeAll(keepingCapacity: true)
                        let taken = view.copy(from: cursor, limit: 1000, into: &buffer)
                        for start in stride(from: 0, to: buffer.count, by: 100) {
                            let seq = buffer[start..<(start + 8)].withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
                            if Array(buffer[start..<(start + 100)]) == Self.frame(seq) { seqs.append(seq) } else { seqs.append(-1) }
                        }
                        cursor = taken.next
                    }
                }
                results.withLock { $0[reader] = seqs }
                done.leave()
            }
        }
        for seq in Int64(1)...last {
            ring.append(frame(seq), seq: seq, ts: 0)
            if seq % 7 == 0 || seq == last { ring.publish() }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        for seqs in results.withLock({ $0 }) { XCTAssertEqual(seqs, Array(1...last)) }
    }
}
