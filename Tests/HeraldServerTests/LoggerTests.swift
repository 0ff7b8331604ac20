import Dispatch
import HeraldEngine
import HeraldServer
import HeraldTestSupport
import XCTest

/// The logger never makes its caller wait for stderr, keeps the order of lines, and bounds what
/// waits while stderr is stuck.
final class LoggerTests: XCTestCase {
    func testACallerDoesNotWaitForAStuckStderrAndWhatWaitsIsBounded() {
        let stuck = DispatchSemaphore(value: 0)
        let lines = Protected<[String]>([])
        let logger = Logger(level: .info, maxPending: 3) { bytes in
            if lines.withLock({ $0.isEmpty }) { stuck.wait() }
            lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        }
        // The first write blocks (stderr is a pipe nobody reads); these calls must all return.
        for index in 1...8 { logger.info("line \(index)") }
        logger.debug("below the level")
        XCTAssertEqual(lines.withLock { $0 }, [], "nothing written yet: the writer is stuck")
        stuck.signal()
        logger.flush()
        logger.info("line 9")
        logger.flush()
        let written = lines.withLock { $0 }
        XCTAssertEqual(written.count, 5, "\(written)")
        guard written.count == 5 else { return }
        // In order, the dropped lines said where they were.
        XCTAssertTrue(written[0].hasSuffix(" INFO line 1\n"))
        XCTAssertTrue(written[1].hasSuffix(" INFO line 2\n"))
        XCTAssertTrue(written[2].hasSuffix(" INFO line 3\n"))
        XCTAssertTrue(written[3].hasSuffix(" WARNING 5 log line(s) dropped: stderr could not keep up\n"), written[3])
        XCTAssertTrue(written[4].hasSuffix(" INFO line 9\n"))
    }
}
