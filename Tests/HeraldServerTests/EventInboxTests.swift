import HeraldEngine
@testable import HeraldServer
import XCTest

/// The dispatcher-to-service-thread hand-off: slices, and bounded memory when it falls behind.
final class EventInboxTests: XCTestCase {
    private func event(_ seq: Int64) -> SequencedEvent {
        SequencedEvent(seq: seq, ts: 0, event: .news(revision: seq, items: []))
    }

    func testDrainTakesSlicesInOrder() {
        let inbox = EventInbox()
        for seq in Int64(1)...10 { inbox.push(event(seq)) }
        let size = event(1).json.count
        let first = inbox.drain(maxBytes: size * 4)
        XCTAssertEqual(first.events.map(\.seq), [1, 2, 3, 4])
        XCTAssertTrue(first.more)
        let rest = inbox.drain(maxBytes: 1 << 20)
        XCTAssertEqual(rest.events.map(\.seq), Array(5...10))
        XCTAssertFalse(rest.more)
        XCTAssertEqual(inbox.backlog.current, 0, "the engine's gauge follows what is queued")
        XCTAssertEqual(inbox.drain(maxBytes: 1).events.count, 0)
    }

    func testOverflowDropsEventsAndSaysSoOnce() {
        let inbox = EventInbox(capacity: 3)
        for seq in Int64(1)...5 { inbox.push(event(seq)) }
        let drained = inbox.drain(maxBytes: 1 << 20)
        XCTAssertTrue(drained.overflowed, "the caller must resync its clients")
        XCTAssertEqual(drained.events.map(\.seq), [4, 5], "only what came after the overflow is kept")
        XCTAssertEqual(inbox.backlog.current, 0)
        inbox.push(event(6))
        XCTAssertFalse(inbox.drain(maxBytes: 1 << 20).overflowed)
    }
}
