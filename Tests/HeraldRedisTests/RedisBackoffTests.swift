import HeraldRedis
import HeraldTestSupport
import XCTest

final class RedisBackoffTests: XCTestCase {
    func testDoublesUpToTheCapAndResets() {
        var backoff = RedisBackoff()
        let delays = (0..<9).map { _ in backoff.nextDelay() }
        XCTAssertEqual(delays, [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2, 2, 2])
        XCTAssertEqual(backoff.failures, 9)
        backoff.reset()
        XCTAssertEqual(backoff.failures, 0)
        XCTAssertEqual(backoff.nextDelay(), 0.05, "a success starts again from the first wait")
    }

    func testManyFailuresStayAtTheCap() {
        var backoff = RedisBackoff(initial: 1, maximum: 30)
        for _ in 0..<200 { _ = backoff.nextDelay() }
        XCTAssertEqual(backoff.nextDelay(), 30, "no overflow after many failures")
    }

    func testUnusableBoundsAreRaised() {
        var backoff = RedisBackoff(initial: 0, maximum: -5)
        XCTAssertEqual(backoff.initial, 0.001)
        XCTAssertEqual(backoff.maximum, 0.001, "the cap is never below the first wait")
        XCTAssertEqual(backoff.nextDelay(), 0.001)
        XCTAssertEqual(RedisBackoff(initial: .nan, maximum: .infinity), RedisBackoff())
    }
}
