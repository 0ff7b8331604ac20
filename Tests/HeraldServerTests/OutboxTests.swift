import HeraldEngine
@testable import HeraldServer
import XCTest

/// The slow-client policy as a plain value: collapse, resync, close.
final class OutboxTests: XCTestCase {
    // (the server appends, then relieves when the socket is full; these tests do both at once)
    private func progress(_ seq: Int64, job: String, size: Int = 100) -> OutboundFrame {
        OutboundFrame(kind: .event(seq: seq, progressJob: JobID(job), ts: nil), bytes: Array(repeating: 1, count: size))
    }

    private func lifecycle(_ seq: Int64, size: Int = 100, ts: Int64? = nil) -> OutboundFrame {
        OutboundFrame(kind: .event(seq: seq, progressJob: nil, ts: ts), bytes: Array(repeating: 2, count: size))
    }

    func testUnderTheCapNothingIsDropped() {
        var outbox = Outbox(capBytes: 1000)
        for seq in 1...5 { XCTAssertEqual(outbox.appendAndRelieve(progress(Int64(seq), job: "a"), now: 0), .fine) }
        XCTAssertEqual(outbox.count, 5)
        XCTAssertEqual(outbox.pendingBytes, 500)
    }

    func testOverTheCapProgressCollapsesToTheLatestPerJob() {
        var outbox = Outbox(capBytes: 450)
        _ = outbox.appendAndRelieve(lifecycle(1), now: 0)
        _ = outbox.appendAndRelieve(progress(2, job: "a"), now: 0)
        _ = outbox.appendAndRelieve(progress(3, job: "b"), now: 0)
        _ = outbox.appendAndRelieve(progress(4, job: "a"), now: 0)
        XCTAssertEqual(outbox.appendAndRelieve(progress(5, job: "a"), now: 0), .fine)
        let kinds = outbox.frames.map(\.kind)
        XCTAssertEqual(
            kinds,
            [
                .event(seq: 1, progressJob: nil, ts: nil), .event(seq: 3, progressJob: JobID("b"), ts: nil),
                .event(seq: 5, progressJob: JobID("a"), ts: nil),
            ])
        XCTAssertEqual(outbox.collapsed, 2)
    }

    func testStillOverTheCapAsksForResyncAndKeepsReplies() {
        var outbox = Outbox(capBytes: 250, resyncLimit: 3, resyncWindow: 10)
        outbox.append(OutboundFrame(kind: .reply, bytes: [9]))
        _ = outbox.appendAndRelieve(lifecycle(1), now: 0)
        _ = outbox.appendAndRelieve(lifecycle(2), now: 0)
        XCTAssertEqual(outbox.appendAndRelieve(lifecycle(3), now: 0), .resync)
        XCTAssertEqual(outbox.frames.map(\.kind), [.reply], "events dropped, the reply kept")
    }

    func testTooManyResyncsInTheWindowClose() {
        var outbox = Outbox(capBytes: 150, resyncLimit: 2, resyncWindow: 10)
        _ = outbox.appendAndRelieve(lifecycle(1), now: 0)
        XCTAssertEqual(outbox.appendAndRelieve(lifecycle(2), now: 0), .resync)
        _ = outbox.appendAndRelieve(lifecycle(3), now: 20)
        XCTAssertEqual(outbox.appendAndRelieve(lifecycle(4), now: 20), .resync, "the first resync left the window")
        _ = outbox.appendAndRelieve(lifecycle(5), now: 25)
        XCTAssertEqual(outbox.appendAndRelieve(lifecycle(6), now: 25), .close)
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

extension Outbox {
    fileprivate mutating func appendAndRelieve(_ frame: OutboundFrame, now: Double) -> Pressure {
        append(frame)
        return relieve(now: now)
    }
}
