import XCTest

@testable import HeraldEngine

/// How a run's outcome ends its job, alone.
final class JobEndingTests: XCTestCase {
    private struct Odd: Error {}

    func testASummaryEndsSucceededUnlessACancelWasAskedFor() {
        let summary: JSONObject = ["count": 3]
        check(JobEnding(.success(summary), wasCancelled: false), .succeeded, nil, summary)
        // A run that returned after a cancel was asked for drops its result.
        check(JobEnding(.success(summary), wasCancelled: true), .cancelled, "cancelled by request", nil)
    }

    func testAStopForACancelEndsCancelledAndSaysWhoseCancel() {
        check(JobEnding(.failure(JobCancelled()), wasCancelled: true), .cancelled, "cancelled by request", nil)
        // A run may stop for a cancel no one here asked for (a worker told to stop).
        check(JobEnding(.failure(JobCancelled()), wasCancelled: false), .cancelled, "cancelled", nil)
    }

    func testAnyOtherErrorEndsFailedWithItsMessage() {
        check(JobEnding(.failure(JobFailure("exit 3")), wasCancelled: false), .failed, "exit 3", nil)
        check(JobEnding(.failure(Odd()), wasCancelled: false), .failed, String(describing: Odd()), nil)
    }

    private func check(
        _ ending: JobEnding, _ state: JobState, _ error: String?, _ summary: JSONObject?, line: UInt = #line
    ) {
        XCTAssertEqual(ending.state, state, line: line)
        XCTAssertEqual(ending.error, error, line: line)
        XCTAssertEqual(ending.summary, summary, line: line)
    }
}
