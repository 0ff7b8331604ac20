import Foundation
import HeraldEngine
@testable import HeraldServer
import XCTest

/// What the service threads share to stay one server: the connection limit and `/metrics`.
final class ServerSharedStateTests: XCTestCase {
    func testTheConnectionLimitHoldsAcrossThreads() {
        let budget = ConnectionBudget(limit: 100)
        let granted = Protected(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            var mine = 0
            for _ in 0..<60 where budget.take() { mine += 1 }
            granted.withLock { $0 += mine }
        }
        XCTAssertEqual(granted.withLock { $0 }, 100, "240 asked, exactly the limit granted")
        XCTAssertFalse(budget.take())
        budget.giveBack()
        XCTAssertEqual(budget.count, 99)
        XCTAssertTrue(budget.take(), "a place given back is free again")
    }

    func testMetricsAddUpOverThreads() {
        var first = ServerMetrics()
        first.connectionsOpen = 3
        first.framesSent = 10
        first.countCommand("start", outcome: "ok")
        first.observeDeliveryLatency(seconds: 0.002)
        var second = ServerMetrics()
        second.connectionsOpen = 4
        second.framesSent = 5
        second.countCommand("start", outcome: "ok")
        second.countCommand("cancel", outcome: "not_found")
        second.observeDeliveryLatency(seconds: 3)
        let total = ServerMetrics.sum([first, second])
        XCTAssertEqual([total.connectionsOpen, total.framesSent], [7, 15])
        XCTAssertEqual(total.commands, ["start/ok": 2, "cancel/not_found": 1])
        XCTAssertEqual(total.deliveryLatencyCount, 2)
        XCTAssertEqual(total.deliveryLatencyBuckets.last, 2)
        XCTAssertEqual(total.deliveryLatencyBuckets[1], 1, "only the 2 ms one is within 5 ms")
    }

    func testTheBoardAnswersWithTheAskersFreshCountsAndTheOthersLastCopies() {
        let board = MetricsBoard(threads: 2)
        var zero = ServerMetrics()
        zero.framesSent = 5
        var one = ServerMetrics()
        one.framesSent = 7
        board.publish(one, thread: 1)
        board.publish(zero, thread: 0)
        zero.framesSent = 6
        XCTAssertEqual(board.total(current: zero, thread: 0).framesSent, 13, "its own count now, the other's last copy")
        // Thread 0 has not swept since; the next scrape, answered by thread 1, still counts its 6.
        XCTAssertEqual(board.total(current: one, thread: 1).framesSent, 13, "a counter never goes back between scrapes")
        zero.framesSent = 8
        XCTAssertEqual(board.total(current: zero, thread: 0).framesSent, 15)
    }
}
