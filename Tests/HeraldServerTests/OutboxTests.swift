import HeraldEngine
@testable import HeraldServer
import HeraldTestSupport
import XCTest

/// A connection's own frames (replies, its snapshot, replayed events) and its resync count.
final class OutboxTests: XCTestCase {
    private func lifecycle(_ seq: Int64, size: Int = 100, ts: Int64? = nil) -> OutboundFrame {
        OutboundFrame(kind: .event(seq: seq, progressJob: nil, ts: ts, job: nil), bytes: Array(repeating: 2, count: size))
    }

    func testDiscardingEventsKeepsReplies() {
        var outbox = Outbox(capBytes: 250)
        outbox.append(OutboundFrame(kind: .reply, bytes: [9]))
        outbox.append(lifecycle(1))
        outbox.append(OutboundFrame(kind: .snapshot(seq: 1), bytes: [1, 2]))
        outbox.discardEvents()
        XCTAssertEqual(outbox.frames.map(\.kind), [.reply], "events and the snapshot dropped, the reply kept")
        XCTAssertEqual(outbox.pendingBytes, 1)
        XCTAssertEqual(outbox.count, 1)
    }

    /// `count` and `isEmpty` are kept beside the frames, not read off them: they must follow every
    /// change (appends, batches that stop mid-queue, discards, removal).
    func testCountFollowsEveryChange() {
        var outbox = Outbox(capBytes: 10_000)
        var buffer: [UInt8] = []
        XCTAssertTrue(outbox.isEmpty)
        XCTAssertNil(outbox.takeBatch(limit: 100, into: &buffer), "nothing to take")
        XCTAssertTrue(buffer.isEmpty)
        outbox.append(OutboundFrame(kind: .reply, bytes: [9]))
        for seq in 1...4 { outbox.append(lifecycle(Int64(seq), size: 40)) }
        XCTAssertEqual(outbox.count, 5)
        outbox.takeBatch(limit: 50, into: &buffer)
        XCTAssertEqual(outbox.count, 3, "the reply and one event fit 50 bytes")
        outbox.discardEvents()
        XCTAssertTrue(outbox.isEmpty, "only events were left")
        outbox.append(OutboundFrame(kind: .reply, bytes: [1]))
        outbox.append(lifecycle(5))
        outbox.removeAll()
        XCTAssertEqual(outbox.count, 0)
        XCTAssertTrue(outbox.isEmpty)
        outbox.append(lifecycle(6))
        XCTAssertFalse(outbox.isEmpty)
        outbox.takeBatch(limit: 1_000, into: &buffer)
        XCTAssertTrue(outbox.isEmpty)
        XCTAssertEqual(buffer.count, 100)
    }

    func testTooManyResyncsInTheWindowClose() {
        var outbox = Outbox(capBytes: 150, resyncLimit: 2, resyncWindow: 10)
        XCTAssertEqual(outbox.noteResync(now: 0), .resync)
        XCTAssertEqual(outbox.noteResync(now: 20), .resync, "the first resync left the window")
        XCTAssertEqual(outbox.noteResync(now: 25), .close)
    }

    func testBatchesTakeWholeFramesUpToTheLimit() {
        var outbox = Outbox(capBytes: 10_000)
        for seq in 1...5 { outbox.append(lifecycle(Int64(seq), size: 30)) }
        var buffer: [UInt8] = []
        outbox.takeBatch(limit: 100, into: &buffer)
        XCTAssertEqual(buffer.count, 90, "three whole frames fit in 100 bytes")
        XCTAssertEqual(outbox.count, 2)
        XCTAssertEqual(outbox.pendingBytes, 60)
        outbox.append(lifecycle(6, size: 500))
        outbox.takeBatch(limit: 100, into: &buffer)
        XCTAssertEqual(buffer.count, 60)
        outbox.takeBatch(limit: 100, into: &buffer)
        XCTAssertEqual(buffer.count, 500, "a frame larger than the limit still goes out alone")
        XCTAssertTrue(outbox.isEmpty)
    }

    func testABatchReportsItsOldestLiveEvent() {
        var outbox = Outbox(capBytes: 10_000)
        outbox.append(OutboundFrame(kind: .reply, bytes: [1]))
        outbox.append(lifecycle(1, size: 10))  // replayed on resume: no ts, not observed
        outbox.append(lifecycle(2, size: 10, ts: 5_000))
        outbox.append(lifecycle(3, size: 10, ts: 4_000))  // the wall clock stepped back: still the oldest
        outbox.append(lifecycle(4, size: 10, ts: 6_000))
        outbox.append(lifecycle(5, size: 10, ts: 1_000))  // beyond the limit: the next batch's
        var buffer: [UInt8] = []
        XCTAssertEqual(outbox.takeBatch(limit: 41, into: &buffer), 4_000)
        XCTAssertEqual(outbox.takeBatch(limit: 41, into: &buffer), 1_000)
        outbox.append(OutboundFrame(kind: .snapshot(seq: 9), bytes: [2]))
        outbox.append(lifecycle(10, size: 10))
        XCTAssertNil(outbox.takeBatch(limit: 41, into: &buffer), "a snapshot, a reply or a replayed event is not observed")
    }
}
