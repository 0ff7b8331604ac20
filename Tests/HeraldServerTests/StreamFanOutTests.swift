import HeraldEngine
@testable import HeraldServer
import XCTest

/// The fan-out to several service threads: each event framed once into the shared ring, every
/// thread told once, snapshots and resumes stamped with where the ring ended, answers routed to the
/// thread that owns them, and pacing over all threads.
final class StreamFanOutTests: XCTestCase {
    private func event(_ seq: Int64) -> SequencedEvent { SequencedEvent(seq: seq, ts: seq, event: .news(revision: seq, items: [])) }

    /// Counts wake-ups (the transport's `lws_cancel_service`).
    private final class WakeCounter: Sendable {
        let count = Protected(0)
        func wake() { count.withLock { $0 += 1 } }
    }

    func testEventsAreFramedOnceAndEveryThreadIsWokenOnce() {
        let fanOut = StreamFanOut(threads: 3, ringBytes: 1 << 20)
        let counters = fanOut.inboxes.map { inbox in
            let counter = WakeCounter()
            inbox.setWaker { counter.wake() }
            return counter
        }
        fanOut.post(events: [event(1), event(2)])
        fanOut.post(events: [event(3)])
        let view = fanOut.ring.view
        XCTAssertEqual([view.count, Int(view.lastSeq!)], [3, 3], "one copy of each frame, whatever the threads")
        var buffer: [UInt8] = []
        _ = view.copy(from: 0, limit: 1 << 20, into: &buffer)
        XCTAssertEqual(buffer, [1, 2, 3].flatMap { WebSocketFrame.text(event($0).json) })
        for (inbox, counter) in zip(fanOut.inboxes, counters) {
            XCTAssertEqual(counter.count.withLock { $0 }, 1, "one wake-up for what piled up")
            XCTAssertTrue(inbox.drain().ringAdvanced)
            XCTAssertFalse(inbox.drain().ringAdvanced, "taken")
        }
    }

    func testSnapshotsAndResumesAreStampedWithTheRingsEndAndReachTheirThread() {
        let fanOut = StreamFanOut(threads: 2, ringBytes: 1 << 20)
        let connection = fanOut.routing.id(serial: 5, thread: 1)
        fanOut.post(events: [event(1), event(2)])
        fanOut.post(.answer(.resume(connection, since: 1), .resume(.events([]))))
        fanOut.post(events: [event(3)])
        fanOut.post(.answer(.snapshot(generation: 0), .schedules([])), thread: 0)
        fanOut.post(.answer(.command(connection, type: "start", requestId: nil), .schedules([])))
        let zero = fanOut.inboxes[0].drain()
        let one = fanOut.inboxes[1].drain()
        XCTAssertEqual(zero.ordered.map(\.ringIndex), [3], "the snapshot covers the three events before it")
        XCTAssertEqual(one.ordered.map(\.ringIndex), [2], "the resume was answered after two events")
        XCTAssertEqual([zero.replies.count, one.replies.count], [0, 1], "a reply goes to the connection's owner only")
        XCTAssertEqual(one.replies.compactMap(\.addressee), [connection])
    }

    func testPacingFollowsTheSlowestThreadAndSumsBacklogs() {
        let fanOut = StreamFanOut(threads: 2, ringBytes: 1 << 20)
        fanOut.post(events: (1...10).map(event))
        fanOut.inboxes[0].noteTaken(endIndex: 10)
        fanOut.inboxes[1].noteTaken(endIndex: 4)
        XCTAssertEqual(fanOut.undeliveredEvents, 6)
        fanOut.inboxes[0].noteBacklog(backlogged: 1, of: 10)
        fanOut.inboxes[1].noteBacklog(backlogged: 0, of: 10)
        XCTAssertFalse(fanOut.deliveryIsBehind, "1 of 20 is not more than a tenth")
        fanOut.inboxes[1].noteBacklog(backlogged: 2, of: 10)
        XCTAssertTrue(fanOut.deliveryIsBehind, "3 of 20 is")
    }

    func testAStreamResetEmptiesTheRingAndTellsEveryThreadAsDoesStop() {
        let fanOut = StreamFanOut(threads: 2, ringBytes: 1 << 20)
        fanOut.post(events: [event(1)])
        fanOut.resetStream()
        XCTAssertTrue(fanOut.ring.view.isEmpty)
        XCTAssertEqual(fanOut.ring.view.firstIndex, 1, "indices go on growing")
        fanOut.requestStop()
        for inbox in fanOut.inboxes {
            let drained = inbox.drain()
            XCTAssertTrue(drained.streamReset)
            XCTAssertTrue(drained.stopRequested)
        }
    }

    func testJobEventsCarryTheirRecordForTheHubsToLearnKinds() {
        let fanOut = StreamFanOut(threads: 2, ringBytes: 1 << 20)
        let job = JobRecord(id: JobID("j-a"), kind: .sort, params: [:], createdAt: 1)
        fanOut.post(events: [event(1), SequencedEvent(seq: 2, ts: 2, event: .job(job)), event(3)])
        XCTAssertEqual(fanOut.ring.view.jobChanges(from: 0).map(\.id), [job.id])
        XCTAssertEqual(fanOut.ring.view.jobChanges(from: 2).count, 0)
    }
}
