import Dispatch
import HeraldSupport
import XCTest

/// The condition whose timed waits count on the monotonic clock: a wait ends at its deadline or at
/// a signal, whichever comes first.
final class MonotonicConditionTests: XCTestCase {
    func testAWaitNobodySignalsEndsAtItsDeadline() {
        let condition = MonotonicCondition()
        let began = MonotonicCondition.now()
        condition.lock()
        // A condition wait may wake spuriously: wait until the deadline says it has passed.
        let deadline = MonotonicCondition.deadline(after: 0.05)
        while condition.wait(until: deadline) {}
        condition.unlock()
        XCTAssertGreaterThanOrEqual(MonotonicCondition.now() - began, 0.05)
    }

    func testASignalEndsAWaitBeforeItsDeadline() {
        let condition = MonotonicCondition()
        let ready = Flag()
        condition.lock()
        DispatchQueue.global().async {
            condition.lock()
            ready.value = true
            condition.signal()
            condition.unlock()
        }
        let deadline = MonotonicCondition.deadline(after: 600)
        while !ready.value, condition.wait(until: deadline) {}
        condition.unlock()
        XCTAssertTrue(ready.value, "woken by the signal, not by the deadline 10 minutes away")
    }

    /// A flag the test's two threads share. @unchecked Sendable: read and written only while the
    /// test's `MonotonicCondition` is locked.
    private final class Flag: @unchecked Sendable {
        var value = false
    }
}
