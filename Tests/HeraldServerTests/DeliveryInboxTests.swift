import HeraldEngine
import HeraldServer
import HeraldTestSupport
import XCTest

/// The engine-to-service-thread hand-off: two lanes, slices, bounded memory when it falls behind.
final class DeliveryInboxTests: XCTestCase {
    private func event(_ seq: Int64) -> Delivery {
        .event(SequencedEvent(seq: seq, ts: 0, event: .news(revision: seq, items: [])))
    }

    private func seqs(_ deliveries: [Delivery]) -> [Int64] {
        deliveries.compactMap { if case .event(let event) = $0 { return event.seq } else { return nil } }
    }

    private let snapshot = Snapshot(epoch: "e", seq: 0, jobs: [], news: NewsFeed(), limits: [:])

    func testDrainTakesSlicesInOrder() {
        let inbox = DeliveryInbox()
        for seq in Int64(1)...10 { inbox.post(event(seq)) }
        XCTAssertEqual(inbox.undeliveredEvents, 10)
        let size = SequencedEvent(seq: 1, ts: 0, event: .news(revision: 1, items: [])).json.count
        let first = inbox.drain(maxEntries: 100, maxBytes: size * 4)
        XCTAssertEqual(seqs(first.ordered), [1, 2, 3, 4])
        XCTAssertTrue(first.more)
        let second = inbox.drain(maxEntries: 2, maxBytes: 1 << 20)
        XCTAssertEqual(seqs(second.ordered), [5, 6], "the entry bound holds too")
        let rest = inbox.drain(maxEntries: 100, maxBytes: 1 << 20)
        XCTAssertEqual(seqs(rest.ordered), Array(7...10))
        XCTAssertFalse(rest.more)
        XCTAssertEqual(inbox.undeliveredEvents, 0, "the gauge follows what is queued")
        XCTAssertTrue(inbox.drain(maxEntries: 1, maxBytes: 1).ordered.isEmpty)
    }

    func testRepliesOvertakeEventsButSnapshotsStayInStep() {
        let inbox = DeliveryInbox()
        inbox.post(event(1))
        inbox.post(.answer(.snapshot(generation: 0), .snapshot(snapshot)))
        inbox.post(event(2))
        inbox.post(.answer(.http(7, HTTPQuery("GET /api/news")), .news(NewsFeed())))
        let drained = inbox.drain(maxEntries: 100, maxBytes: 1 << 20)
        XCTAssertEqual(drained.replies.count, 1, "the HTTP answer is in the reply lane")
        XCTAssertEqual(drained.ordered.count, 3)
        guard case .answer(.snapshot, _) = drained.ordered[1] else { return XCTFail("the snapshot stays between events 1 and 2") }
    }

    func testOverflowDropsEventsKeepsAnswersAndSaysSoOnce() {
        let inbox = DeliveryInbox(capacity: 3)
        inbox.post(event(1))
        inbox.post(.answer(.resume(5, since: 0), .resume(.events([]))))
        for seq in Int64(2)...5 { inbox.post(event(seq)) }
        let drained = inbox.drain(maxEntries: 100, maxBytes: 1 << 20)
        XCTAssertTrue(drained.overflowed, "the caller must resync its clients")
        XCTAssertEqual(seqs(drained.ordered), [4, 5], "only what came after the overflow is kept")
        XCTAssertEqual(drained.ordered.count, 3, "the resume answer someone waits for is kept")
        XCTAssertEqual(inbox.undeliveredEvents, 0)
        inbox.post(event(6))
        XCTAssertFalse(inbox.drain(maxEntries: 100, maxBytes: 1 << 20).overflowed)
    }

    func testOverflowByBytes() {
        let inbox = DeliveryInbox(capacity: 1000, capacityBytes: 100)
        for seq in Int64(1)...10 { inbox.post(event(seq)) }
        let drained = inbox.drain(maxEntries: 100, maxBytes: 1 << 20)
        XCTAssertTrue(drained.overflowed)
        XCTAssertLessThan(drained.ordered.count, 10)
    }

    func testDeliveryIsBehindWhenMoreThanATenthOfTheConnectionsHoldABacklog() {
        let inbox = DeliveryInbox()
        XCTAssertFalse(inbox.deliveryIsBehind, "nothing counted yet")
        inbox.noteBacklog(backlogged: 1, of: 100)
        XCTAssertFalse(inbox.deliveryIsBehind, "one stalled client does not hold everyone back")
        inbox.noteBacklog(backlogged: 11, of: 100)
        XCTAssertTrue(inbox.deliveryIsBehind)
        inbox.noteBacklog(backlogged: 1, of: 1)
        XCTAssertTrue(inbox.deliveryIsBehind, "the only client is behind")
    }

    func testWakesOnlyWhenItWasEmpty() {
        let inbox = DeliveryInbox()
        let wakes = Protected(0)
        inbox.setWaker { wakes.withLock { $0 += 1 } }
        XCTAssertEqual(wakes.withLock { $0 }, 0, "nothing waiting: no wake on install")
        inbox.post(event(1))
        inbox.post(event(2))
        XCTAssertEqual(wakes.withLock { $0 }, 1, "one wake drains both")
        _ = inbox.drain(maxEntries: 100, maxBytes: 1 << 20)
        inbox.post(.answer(.http(1, HTTPQuery("GET /api/news")), .news(NewsFeed())))
        XCTAssertEqual(wakes.withLock { $0 }, 2)
        inbox.requestStop()
        XCTAssertEqual(wakes.withLock { $0 }, 3)
        XCTAssertTrue(inbox.drain(maxEntries: 1, maxBytes: 1).stopRequested)
        inbox.setWaker(nil)
        inbox.post(event(3))
        XCTAssertEqual(wakes.withLock { $0 }, 3, "a removed waker is never called")
    }
}
