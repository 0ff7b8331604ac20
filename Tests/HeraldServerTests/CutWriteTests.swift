import HeraldEngine
import HeraldTestSupport
import XCTest

@testable import HeraldServer

/// A write the socket cut short: the whole frames after the cut one go back to the ring, and only
/// the rest of the cut frame is left to send, so what the transport keeps for a full socket is under
/// one frame, and the connection still gets every event once, in order.
final class CutWriteTests: XCTestCase {
    private typealias Harness = HubHarness

    private func event(_ seq: Int64) -> Delivery {
        .event(
            SequencedEvent(
                seq: seq, ts: 0,
                event: .progress(job: JobID("j-1"), JobProgress(completed: seq, total: 100, message: String(repeating: "x", count: 500)))))
    }

    /// A live connection with events 1...count waiting, and the batch `writable` gives it.
    private func batch(count: Int64, configure: (inout ServerConfiguration) -> Void = { _ in }) -> (Harness, [UInt8], frames: [Int]) {
        var harness = Harness(configure)
        harness.connectLive(1)
        harness.deliver((1...count).map(event))
        _ = harness.take()
        guard case .write = harness.hub.writable(1, nowMicros: 0, into: &harness.buffer, actions: &harness.actions) else {
            XCTFail("a write")
            return (harness, [], [])
        }
        return (harness, harness.buffer, Harness.frameLengths(harness.buffer))
    }

    private func seqs(_ messages: [JSONValue]) -> [Int64] { messages.compactMap { $0["seq"]?.intValue } }

    func testTheFramesAfterTheCutOneGoBackToTheRing() {
        var (harness, bytes, frames) = batch(count: 10)
        XCTAssertEqual(frames.count, 10)
        let counted = harness.hub.metrics.framesSent
        // The socket took the first two frames and 100 bytes of the third.
        let sent = frames[0] + frames[1] + 100
        let rest = harness.hub.cutShort(1, sent: sent, of: bytes.count)
        XCTAssertEqual(rest, frames[2] - 100, "the rest of the third frame only")
        XCTAssertEqual(harness.hub.metrics.framesSent, counted - 7, "the frames taken back are not counted sent")
        // What the client then reads: the cut frame's rest, then the next batch from the fourth event.
        let resent = harness.written(1).messages
        XCTAssertEqual(seqs(resent), Array(4...10))
        XCTAssertEqual(Harness.payloads(Array(bytes[..<(sent + rest)])).count, 3, "whole frames up to the cut one's end")
    }

    func testACutBetweenFramesLeavesNothingToSend() {
        var (harness, bytes, frames) = batch(count: 5)
        XCTAssertEqual(harness.hub.cutShort(1, sent: frames[0], of: bytes.count), 0)
        XCTAssertEqual(seqs(harness.written(1).messages), Array(2...5))
    }

    func testACutInTheLastFrameKeepsItsRest() {
        var (harness, bytes, frames) = batch(count: 3)
        let sent = bytes.count - frames[2] + 10
        XCTAssertEqual(harness.hub.cutShort(1, sent: sent, of: bytes.count), bytes.count - sent)
        XCTAssertTrue(seqs(harness.written(1).messages).isEmpty, "nothing went back")
    }

    func testABatchEndingWithAPingIsKeptWhole() {
        var harness = Harness {
            $0.pingAfterSeconds = 1
            $0.hangupAfterSeconds = 3
        }
        harness.connectLive(1)
        harness.deliver((1...4).map(event))
        harness.now = 1
        harness.hub.sweepKeepalive(now: 1, into: &harness.actions)
        guard case .write = harness.hub.writable(1, nowMicros: 0, into: &harness.buffer, actions: &harness.actions) else {
            return XCTFail("a write")
        }
        XCTAssertEqual(Array(harness.buffer.suffix(WebSocketFrame.ping.count)), WebSocketFrame.ping)
        XCTAssertEqual(harness.hub.cutShort(1, sent: 10, of: harness.buffer.count), harness.buffer.count - 10)
    }

    func testOnlyTheLastBatchCanBeCut() {
        var (harness, bytes, _) = batch(count: 4)
        harness.connectLive(2)
        XCTAssertEqual(harness.hub.cutShort(2, sent: 5, of: bytes.count), bytes.count - 5, "another connection's: all kept")
    }
}
