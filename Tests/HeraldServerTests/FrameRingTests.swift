@testable import HeraldServer
import HeraldTestSupport
import XCTest

/// The shared ring of framed events: bounded bytes, cursors by entry index, whole frames per copy,
/// wrap-around, and cursors that fall off the tail.
final class FrameRingTests: XCTestCase {
    private func frame(_ seq: Int64, size: Int = 100) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: Int(seq) &* 31 &+ $0) }
    }

    func testCopiesWholeFramesFromACursorAcrossTheWrap() {
        var ring = FrameRing(capacityBytes: 4096)
        var expected: [Int64: [UInt8]] = [:]
        // 100 frames of 150 bytes through a 4 KiB ring: it wraps many times and keeps the newest 27.
        for seq in Int64(1)...100 {
            let bytes = frame(seq, size: 150)
            expected[seq] = bytes
            ring.append(bytes, seq: seq, ts: seq * 10)
        }
        XCTAssertLessThanOrEqual(ring.bytes, 4096)
        XCTAssertEqual(ring.count, 4096 / 150)
        XCTAssertEqual(ring.lastSeq, 100)
        let first = try! XCTUnwrap(ring.firstSeq)
        var cursor = ring.firstIndex
        var seen: [UInt8] = []
        var buffer: [UInt8] = []
        while cursor < ring.endIndex {
            buffer.removeAll()
            let taken = ring.copy(from: cursor, limit: 1000, into: &buffer)
            XCTAssertEqual(taken.frames, 1000 / 150, "as many whole frames as fit")
            XCTAssertEqual(buffer.count, taken.frames * 150)
            XCTAssertEqual(taken.oldest, (first + (cursor - ring.firstIndex)) * 10, "the earliest ts of the batch")
            seen += buffer
            cursor = taken.next
            if ring.endIndex - cursor < 6 { break }
        }
        buffer.removeAll()
        let rest = ring.copy(from: cursor, limit: 100_000, into: &buffer)
        XCTAssertEqual(rest.next, ring.endIndex)
        seen += buffer
        XCTAssertEqual(seen, (first...100).flatMap { expected[$0]! }, "the bytes, in order, across the wrap")
    }

    func testAFrameLargerThanTheLimitGoesOutAlone() {
        var ring = FrameRing(capacityBytes: 8192)
        ring.append(frame(1, size: 3000), seq: 1, ts: 0)
        ring.append(frame(2, size: 10), seq: 2, ts: 0)
        var buffer: [UInt8] = []
        let taken = ring.copy(from: 0, limit: 100, into: &buffer)
        XCTAssertEqual([taken.frames, buffer.count], [1, 3000])
        let none = ring.copy(from: 1, limit: 100, into: &buffer)
        XCTAssertEqual(none.frames, 0, "a non-empty buffer takes no frame past the limit")
    }

    func testCursorsFindTheFirstEventAfterASeqAndFallOffTheTail() {
        var ring = FrameRing(capacityBytes: 4096)
        XCTAssertEqual(ring.index(after: 7), 0, "an empty ring: the next entry")
        for seq in Int64(10)...20 { ring.append(frame(seq), seq: seq, ts: 0) }
        XCTAssertEqual(ring.index(after: 9), 0)
        XCTAssertEqual(ring.index(after: 14), 5)
        XCTAssertEqual(ring.index(after: 20), ring.endIndex)
        XCTAssertNil(ring.index(after: 5), "events 6 to 9 are not kept: a cursor would skip them")
        XCTAssertEqual(ring.backlogBytes(from: 5), 600)
        let behind = ring.firstIndex
        for seq in Int64(21)...80 { ring.append(frame(seq), seq: seq, ts: 0) }
        XCTAssertLessThan(behind, ring.firstIndex, "that cursor fell off")
        XCTAssertEqual(ring.backlogBytes(from: behind), 0)
    }

    func testAFrameLargerThanTheRingDropsEverything() {
        var ring = FrameRing(capacityBytes: 4096)
        ring.append(frame(1), seq: 1, ts: 0)
        let cursor = ring.endIndex
        ring.append(frame(2, size: 5000), seq: 2, ts: 0)
        XCTAssertTrue(ring.isEmpty)
        XCTAssertLessThan(cursor, ring.firstIndex, "a cursor waiting for it fell off: it will be resynced")
    }

    func testManySmallFramesGrowTheIndexNotTheBytes() {
        var ring = FrameRing(capacityBytes: 1 << 16)
        for seq in Int64(1)...5000 { ring.append(frame(seq, size: 8), seq: seq, ts: 0) }
        XCTAssertEqual(ring.count, 5000)
        XCTAssertEqual(ring.index(after: 2500), 2500)
        var buffer: [UInt8] = []
        _ = ring.copy(from: 4999, limit: 100, into: &buffer)
        XCTAssertEqual(buffer, frame(5000, size: 8))
    }
}
