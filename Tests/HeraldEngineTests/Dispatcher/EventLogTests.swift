import HeraldEngine
import HeraldTestSupport
import XCTest

final class EventLogTests: XCTestCase {
    private func event(_ seq: Int64) -> SequencedEvent {
        SequencedEvent(seq: seq, ts: seq * 10, event: .progress(job: JobID("j-1"), JobProgress(completed: seq)))
    }

    private func log(capacity: Int, through last: Int64) -> EventLog {
        var log = EventLog(capacity: capacity)
        if last > 0 { for seq in 1...last { log.append(event(seq)) } }
        return log
    }

    func testLargeEventsAreBoundedByBytes() {
        let size = event(10).json.count  // the largest of the ten (more digits)
        var log = EventLog(capacity: 100, maxBytes: size * 3)
        for seq in Int64(1)...10 { log.append(event(seq)) }
        XCTAssertEqual(log.count, 3, "at most three events' bytes")
        XCTAssertLessThanOrEqual(log.bytes, size * 3)
        XCTAssertEqual(log.events(after: 7, currentSeq: 10)?.map(\.seq), [8, 9, 10])
        XCTAssertNil(log.events(after: 5, currentSeq: 10), "older ones are gone: a snapshot instead")
        var tiny = EventLog(capacity: 10, maxBytes: 1)
        tiny.append(event(1))
        XCTAssertEqual(tiny.newestSeq, 1, "the newest event always stays")
    }

    func testKeepsWhatAReplayNeeds() {
        var log = EventLog(capacity: 4)
        let progress = event(1)
        let news = SequencedEvent(seq: 2, ts: 20, event: .news(revision: 1, items: []))
        log.append(progress)
        log.append(news)
        let kept = log.events(after: 0, currentSeq: 2)
        XCTAssertEqual(kept?.map(\.json), [progress.json, news.json], "the bytes the live stream carried")
        XCTAssertEqual(kept?.map(\.progressJob), [JobID("j-1"), nil], "so a replayed outbox can still collapse progress")
        XCTAssertEqual(log.bytes, progress.json.count + news.json.count)
    }

    func testEmptyLog() {
        let log = EventLog(capacity: 4)
        XCTAssertEqual(log.count, 0)
        XCTAssertNil(log.oldestSeq)
        XCTAssertNil(log.newestSeq)
        XCTAssertEqual(log.events(after: 0, currentSeq: 0)?.count, 0, "nothing happened, nothing missed")
    }

    func testKeepsEverythingBelowCapacity() {
        let log = log(capacity: 5, through: 3)
        XCTAssertEqual(log.count, 3)
        XCTAssertEqual(log.oldestSeq, 1)
        XCTAssertEqual(log.newestSeq, 3)
        XCTAssertEqual(log.events(after: 0, currentSeq: 3)?.map(\.seq), [1, 2, 3])
        XCTAssertEqual(log.events(after: 1, currentSeq: 3)?.map(\.seq), [2, 3])
    }

    func testWrapAroundKeepsTheNewestInOrder() {
        let log = log(capacity: 4, through: 11)
        XCTAssertEqual(log.count, 4, "memory stays bounded")
        XCTAssertEqual(log.oldestSeq, 8)
        XCTAssertEqual(log.newestSeq, 11)
        XCTAssertEqual(log.events(after: 7, currentSeq: 11)?.map(\.seq), [8, 9, 10, 11])
        XCTAssertEqual(log.events(after: 9, currentSeq: 11)?.map(\.seq), [10, 11])
        XCTAssertEqual(log.events(after: 9, currentSeq: 11)?.map(\.ts), [100, 110], "the events themselves, not only their numbers")
    }

    func testEveryWrapOffset() {
        for last in Int64(1)...12 {
            let log = log(capacity: 5, through: last)
            let oldest = max(1, last - 4)
            XCTAssertEqual(log.oldestSeq, oldest, "after \(last)")
            XCTAssertEqual(log.events(after: oldest - 1, currentSeq: last)?.map(\.seq), Array(oldest...last), "after \(last)")
        }
    }

    func testEdges() {
        let log = log(capacity: 4, through: 10)  // keeps 7...10
        XCTAssertEqual(log.events(after: 10, currentSeq: 10)?.count, 0, "up to date: nothing to send")
        XCTAssertEqual(log.events(after: 9, currentSeq: 10)?.map(\.seq), [10])
        XCTAssertEqual(log.events(after: 6, currentSeq: 10)?.map(\.seq), [7, 8, 9, 10], "exactly oldest-1: all of them")
        XCTAssertNil(log.events(after: 5, currentSeq: 10), "seq 6 is gone: the client needs a snapshot")
        XCTAssertNil(log.events(after: 0, currentSeq: 10))
        XCTAssertNil(log.events(after: 11, currentSeq: 10), "a seq from the future")
        XCTAssertNil(log.events(after: -1, currentSeq: 10))
    }

    func testCapacityOne() {
        let log = log(capacity: 1, through: 3)
        XCTAssertEqual(log.events(after: 2, currentSeq: 3)?.map(\.seq), [3])
        XCTAssertNil(log.events(after: 1, currentSeq: 3))
    }
}
