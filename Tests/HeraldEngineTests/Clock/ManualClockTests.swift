import Dispatch
import HeraldEngine
import HeraldTestSupport
import XCTest

/// The clock tests advance instead of sleeping: timers fire on their queue, in deadline order, a
/// repeating one once per period passed, none after it was cancelled.
final class ManualClockTests: XCTestCase {
    func testTimersFireInDeadlineOrderOnTheirQueueAndStopWhenCancelled() {
        let clock = ManualClock()
        let queue = DispatchQueue(label: "manual-clock-test")
        let fired = Protected<[String]>([])
        let tick = clock.schedule(on: queue, after: 0.1, repeating: 0.1) {
            dispatchPrecondition(condition: .onQueue(queue))
            fired.withLock { $0.append("tick@\(clock.now())") }
        }
        _ = clock.schedule(on: queue, after: 0.25, repeating: nil) { fired.withLock { $0.append("once@\(clock.now())") } }
        clock.advance(by: 0.05)
        XCTAssertEqual(fired.withLock { $0 }, [], "nothing is due yet")
        clock.advance(by: 0.3)
        XCTAssertEqual(fired.withLock { $0 }.map { $0.prefix(8) }, ["tick@0.1", "tick@0.2", "once@0.2", "tick@0.3"])
        XCTAssertEqual(clock.now(), 0.35, accuracy: 1e-9)
        queue.sync { tick.cancel() }
        clock.advance(by: 1)
        XCTAssertEqual(fired.withLock { $0 }.count, 4, "a cancelled timer fires no more; a one-shot fired once")
        XCTAssertEqual(clock.scheduledCount, 0)
    }
}
