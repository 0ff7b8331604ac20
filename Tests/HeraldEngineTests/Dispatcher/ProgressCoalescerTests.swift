import HeraldEngine
import HeraldTestSupport
import XCTest

final class ProgressCoalescerTests: XCTestCase {
    private func sample(_ completed: Int64, of total: Int64 = 1000, _ message: String? = nil) -> JobProgress {
        JobProgress(completed: completed, total: total, message: message)
    }

    func testMinIntervalFollowsTheRate() {
        XCTAssertEqual(ProgressCoalescer(maxEventsPerSecond: 20).minInterval, 0.05, accuracy: 1e-12)
        XCTAssertEqual(ProgressCoalescer(maxEventsPerSecond: 0).minInterval, 0, "0 means no bound")
    }

    func testRateBoundOverAWindow() {
        let rate = 20.0
        var coalescer = ProgressCoalescer(maxEventsPerSecond: rate)
        // A sample every millisecond for 3 seconds, every one of them a change.
        var emittedTimes: [Double] = []
        let samples = 3000
        for step in 0..<samples {
            let now = 100 + Double(step) / 1000
            if coalescer.offer(sample(Int64(step + 1), of: 10_000), now: now) != nil { emittedTimes.append(now) }
        }
        let window = 3.0
        XCTAssertLessThanOrEqual(Double(emittedTimes.count), window * rate + 2)
        XCTAssertGreaterThanOrEqual(emittedTimes.count, Int(window * rate) - 2, "the bound must not starve a steady job")
        for (earlier, later) in zip(emittedTimes, emittedTimes.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later - earlier, coalescer.minInterval - 1e-9)
        }
        XCTAssertEqual(coalescer.heldBack, samples - emittedTimes.count)
        // Any one-second window (not only the whole run) holds at most rate + 1 events.
        for start in stride(from: 100.0, to: 102.0, by: 0.013) {
            let inWindow = emittedTimes.filter { $0 >= start && $0 < start + 1 }.count
            XCTAssertLessThanOrEqual(Double(inWindow), rate + 1, "window at \(start)")
        }
    }

    func testFirstValueGoesOutAtOnce() {
        var coalescer = ProgressCoalescer(maxEventsPerSecond: 1)
        let first = coalescer.offer(sample(1), now: 5)
        XCTAssertEqual(first?.completed, 1)
        XCTAssertNil(coalescer.offer(sample(2), now: 5.1), "a change within the interval waits")
    }

    func testFinalValueAlwaysGoesOut() {
        var coalescer = ProgressCoalescer(maxEventsPerSecond: 1)
        XCTAssertNotNil(coalescer.offer(sample(1), now: 0))
        XCTAssertNil(coalescer.offer(sample(500), now: 0.01))
        let final = coalescer.offer(sample(1000), now: 0.02, final: true)
        XCTAssertEqual(final?.completed, 1000, "the last value is sent regardless of the bound")
        XCTAssertEqual(coalescer.heldBack, 1)
    }

    func testUnchangedValueIsNeverEmitted() {
        var coalescer = ProgressCoalescer(maxEventsPerSecond: 10)
        XCTAssertNotNil(coalescer.offer(sample(7, "scan"), now: 0))
        XCTAssertNil(coalescer.offer(sample(7, "scan"), now: 10), "no change, however long after")
        XCTAssertNil(coalescer.offer(sample(7, "scan"), now: 20, final: true), "not even as the final value")
        XCTAssertEqual(coalescer.heldBack, 0, "an unchanged sample is not a held-back one")
        XCTAssertNotNil(coalescer.offer(sample(7, "write"), now: 30), "a new message is a change")
        XCTAssertNotNil(coalescer.offer(sample(7, of: 2000, "write"), now: 40), "a new total is a change")
    }

    func testHeldBackValueGoesOutOnceTheIntervalPassed() {
        var coalescer = ProgressCoalescer(maxEventsPerSecond: 10)
        XCTAssertNotNil(coalescer.offer(sample(1), now: 0))
        XCTAssertNil(coalescer.offer(sample(2), now: 0.05))
        XCTAssertEqual(coalescer.offer(sample(2), now: 0.1)?.completed, 2, "the same value, sampled again later")
    }

    func testRateAndETA() throws {
        var coalescer = ProgressCoalescer(maxEventsPerSecond: 10)
        let first = try XCTUnwrap(coalescer.offer(sample(0, of: 1000), now: 10))
        XCTAssertNil(first.rate, "one point gives no rate")
        XCTAssertNil(first.eta)
        let second = try XCTUnwrap(coalescer.offer(sample(100, of: 1000), now: 11))
        XCTAssertEqual(try XCTUnwrap(second.rate), 100, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(second.eta), 9, accuracy: 1e-9, "900 left at 100 per second")
        // 300 more in one second: smoothed 0.3 * 300 + 0.7 * 100 = 160.
        let third = try XCTUnwrap(coalescer.offer(sample(400, of: 1000), now: 12))
        XCTAssertEqual(try XCTUnwrap(third.rate), 160, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(third.eta), 600.0 / 160, accuracy: 1e-9)
    }

    func testNoETAWithoutATotalOrWithoutMovement() throws {
        var unknownTotal = ProgressCoalescer(maxEventsPerSecond: 10)
        _ = unknownTotal.offer(sample(0, of: 0), now: 0)
        let moved = try XCTUnwrap(unknownTotal.offer(sample(50, of: 0), now: 1))
        XCTAssertEqual(try XCTUnwrap(moved.rate), 50, accuracy: 1e-9)
        XCTAssertNil(moved.eta, "no ETA while the total is unknown")

        var stalled = ProgressCoalescer(maxEventsPerSecond: 10)
        _ = stalled.offer(sample(10, "a"), now: 0)
        let still = try XCTUnwrap(stalled.offer(sample(10, "b"), now: 1))
        XCTAssertEqual(still.rate, 0)
        XCTAssertNil(still.eta, "a rate of zero gives no ETA")
    }

    func testANewCountStartsANewRate() throws {
        var coalescer = ProgressCoalescer(maxEventsPerSecond: 10)
        _ = coalescer.offer(sample(0), now: 0)
        _ = coalescer.offer(sample(500), now: 1)
        let restarted = try XCTUnwrap(coalescer.offer(sample(10, "phase 2"), now: 2))
        XCTAssertNil(restarted.rate, "counting from zero again must not give a negative rate")
        let next = try XCTUnwrap(coalescer.offer(sample(110, "phase 2"), now: 3))
        XCTAssertEqual(try XCTUnwrap(next.rate), 100, accuracy: 1e-9, "the new phase's rate, not blended with the old")
    }

    func testETANeverNegative() throws {
        var coalescer = ProgressCoalescer(maxEventsPerSecond: 10)
        _ = coalescer.offer(sample(0, of: 100), now: 0)
        let over = try XCTUnwrap(coalescer.offer(sample(150, of: 100), now: 1))
        XCTAssertEqual(over.eta, 0)
    }

    /// Counts near the ends of Int64 (a counter that wrapped, a runner's odd numbers) must not trap on
    /// the dispatcher queue: the rate's difference and the ETA's remainder are taken in Double.
    func testCountsAtTheEndsOfInt64DoNotOverflow() throws {
        var coalescer = ProgressCoalescer(maxEventsPerSecond: 10)
        _ = coalescer.offer(JobProgress(completed: .min, total: 1), now: 0)
        let jump = try XCTUnwrap(coalescer.offer(JobProgress(completed: .max - 1, total: .max), now: 1))
        XCTAssertEqual(try XCTUnwrap(jump.rate), 0x1p64, accuracy: 0x1p20, "(max - 1) - min units in one second")
        XCTAssertEqual(try XCTUnwrap(jump.eta), 0, accuracy: 1e-9)
        _ = coalescer.offer(JobProgress(completed: -10, total: .max), now: 2)  // A new count: the rate starts over.
        let far = try XCTUnwrap(coalescer.offer(JobProgress(completed: -4, total: .max), now: 3))
        XCTAssertEqual(try XCTUnwrap(far.rate), 6, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(far.eta), 0x1p63 / 6, accuracy: 0x1p20, "max - (-4) units left at 6 a second")
    }

    /// A rate that has shrunk to almost nothing would give an infinite ETA, which JSON cannot carry
    /// (it would go out as null and be read back as nil): the ETA is unknown instead.
    func testAnETAThatWouldBeInfiniteIsUnknown() throws {
        var coalescer = ProgressCoalescer(maxEventsPerSecond: 0)
        _ = coalescer.offer(JobProgress(completed: 0, total: .max), now: 0)
        let crawl = try XCTUnwrap(coalescer.offer(JobProgress(completed: 1, total: .max), now: 1e300))
        XCTAssertEqual(try XCTUnwrap(crawl.rate), 1e-300, accuracy: 1e-305, "one unit in 1e300 seconds")
        XCTAssertNil(crawl.eta, "9.2e18 units left at 1e-300 a second is more than a Double holds")
    }

    func testProgressNeverHoldsANonFiniteRateOrETA() {
        let progress = JobProgress(completed: 1, total: 2, rate: .infinity, eta: .nan)
        XCTAssertNil(progress.rate)
        XCTAssertNil(progress.eta)
        XCTAssertEqual(JobProgress(rate: 2.5, eta: -0.0).rate, 2.5)
    }
}
