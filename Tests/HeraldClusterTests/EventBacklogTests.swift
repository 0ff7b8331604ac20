import HeraldEngine
import XCTest

@testable import HeraldCluster

/// The publisher's backlog: a queue taken off the front in batches, with its bytes counted, and the
/// bound's shedding of what may go, oldest first, sparing what is in flight.
final class EventBacklogTests: XCTestCase {
    private func progress(_ seq: Int64) -> SequencedEvent {
        SequencedEvent(seq: seq, ts: 0, event: .progress(job: JobID("j-1"), JobProgress(completed: seq, total: 1_000_000)))
    }

    private func news(_ seq: Int64) -> SequencedEvent {
        SequencedEvent(seq: seq, ts: 0, event: .news(revision: seq, items: []))
    }

    private func bytes(_ events: some Sequence<SequencedEvent>) -> Int { events.reduce(0) { $0 + $1.json.count } }

    func testBatchesComeOffTheFrontInOrderWithTheirBytes() {
        var backlog = EventBacklog()
        var events = (1...5_000).map(progress)
        backlog.append(contentsOf: events)
        XCTAssertEqual(backlog.bytes, bytes(events))
        var taken: [Int64] = []
        while !backlog.isEmpty {
            let batch = backlog.prefix(512)
            taken += batch.map(\.seq)
            backlog.removeFirst(batch.count)
            XCTAssertEqual(backlog.bytes, bytes(events.suffix(backlog.count)))
            // More arrives between batches, as the dispatcher enqueues while the publisher appends.
            if taken.count == 1_024 {
                let more = (5_001...5_100).map(progress)
                backlog.append(contentsOf: more)
                events += more
            }
        }
        XCTAssertEqual(taken, Array(1...5_100))
        XCTAssertEqual(backlog.bytes, 0)
        XCTAssertEqual(backlog.count, 0)
    }

    func testSheddingDropsTheOldestSheddableSparingTheInFlightUntilUnderTheBound() {
        var backlog = EventBacklog()
        backlog.append(contentsOf: [progress(1), progress(2), news(3), progress(4), progress(5), news(6), progress(7)])
        let dropped = backlog.shed(sparingFirst: 1, downTo: 4, bytes: .max) { $0.progressJob != nil }
        XCTAssertEqual(dropped, 3)
        XCTAssertEqual(backlog.waiting.map(\.seq), [1, 3, 6, 7], "the first is in flight; news never goes; the newest progress stays")
        XCTAssertEqual(backlog.bytes, bytes(backlog.waiting))
        XCTAssertEqual(backlog.shed(sparingFirst: 0, downTo: 4, bytes: .max) { _ in true }, 0, "under the bound: nothing")
    }

    func testSheddingByBytesAfterTheHeadMoved() {
        var backlog = EventBacklog()
        backlog.append(contentsOf: (1...3_000).map(progress))
        backlog.removeFirst(2_000)
        let one = progress(1).json.count
        let dropped = backlog.shed(sparingFirst: 0, downTo: .max, bytes: 10 * one + one / 2) { _ in true }
        XCTAssertEqual(backlog.count, 1_000 - dropped)
        XCTAssertLessThanOrEqual(backlog.bytes, 10 * one + one / 2)
        XCTAssertEqual(backlog.waiting.last?.seq, 3_000, "the newest stay")
        XCTAssertEqual(backlog.bytes, bytes(backlog.waiting))
    }
}
