@testable import HeraldCluster
import XCTest

/// The bounded queue of audit events waiting for Redis: one drain at a time, the oldest dropped and
/// counted past the bound, and a batch settled right when the bound dropped some of it meanwhile.
final class AuditBacklogTests: XCTestCase {
    private func line(_ index: Int) -> AuditBacklog.Line { [Array("e".utf8), Array("\(index)".utf8)] }

    func testTheFirstAddSchedulesADrainAndTheOthersWaitForIt() {
        var backlog = AuditBacklog(limit: 10)
        XCTAssertEqual(backlog.add(line(1)).mustDrain, true)
        XCTAssertEqual(backlog.add(line(2)).mustDrain, false)
        XCTAssertEqual(backlog.batch(5), [line(1), line(2)])
        backlog.settle(2, droppedWhenTaken: 0)
        XCTAssertTrue(backlog.isEmpty)
        XCTAssertFalse(backlog.finishDrain())
        XCTAssertEqual(backlog.add(line(3)).mustDrain, true, "a drain that ended leaves the next add to schedule one")
    }

    func testADrainGoesOnWhileLinesWait() {
        var backlog = AuditBacklog(limit: 10)
        _ = backlog.add(line(1))
        _ = backlog.add(line(2))
        XCTAssertTrue(backlog.finishDrain(), "lines wait: the drain goes on")
        XCTAssertEqual(backlog.add(line(3)).mustDrain, false)
    }

    func testPastTheBoundTheOldestGoAndAreCounted() {
        var backlog = AuditBacklog(limit: 3)
        for index in 1...3 { XCTAssertFalse(backlog.add(line(index)).droppedOne) }
        XCTAssertTrue(backlog.add(line(4)).droppedOne)
        XCTAssertTrue(backlog.add(line(5)).droppedOne)
        XCTAssertEqual(backlog.dropped, 2)
        XCTAssertEqual(backlog.batch(10), [line(3), line(4), line(5)])
    }

    func testABatchSettledAfterTheBoundDroppedSomeOfItRemovesOnlyWhatIsLeftOfIt() {
        var backlog = AuditBacklog(limit: 4)
        for index in 1...4 { _ = backlog.add(line(index)) }
        let batch = backlog.batch(3)
        let dropped = backlog.dropped
        XCTAssertEqual(batch, [line(1), line(2), line(3)])
        // While the batch is on its way, two more come and push lines 1 and 2 out.
        _ = backlog.add(line(5))
        _ = backlog.add(line(6))
        backlog.settle(batch.count, droppedWhenTaken: dropped)
        XCTAssertEqual(backlog.batch(10), [line(4), line(5), line(6)])
        // More dropped than the batch held: nothing of it is left, nothing else goes.
        let second = backlog.batch(1)
        let droppedNow = backlog.dropped
        for index in 7...9 { _ = backlog.add(line(index)) }
        backlog.settle(second.count, droppedWhenTaken: droppedNow)
        XCTAssertEqual(backlog.batch(10), [line(6), line(7), line(8), line(9)])
    }
}
