import XCTest

@testable import HeraldCluster

/// When a node cut off from Redis stops starting attempts, and when it stops those it runs: by the
/// age of its last renewal Redis took, counted from when it was sent (the times are passed in).
final class LeaseStandingTests: XCTestCase {
    func testAttemptsStartWhileTheLastRenewalIsYoungerThanHalfTheLease() {
        let standing = LeaseStanding(lease: 10, since: 100)
        XCTAssertEqual(standing.verdict(at: 100), .holds)
        XCTAssertEqual(standing.verdict(at: 104.99), .holds)
    }

    func testNoNewAttemptFromHalfTheLeaseAndTheRunningOnesStopAtTheWholeLease() {
        let standing = LeaseStanding(lease: 10, since: 100)
        XCTAssertEqual(standing.verdict(at: 105), .noNewAttempts)
        XCTAssertEqual(standing.verdict(at: 109.99), .noNewAttempts)
        XCTAssertEqual(standing.verdict(at: 110), .lapsed)
        XCTAssertEqual(standing.verdict(at: 500), .lapsed)
    }

    func testARenewalCountsFromWhenItWasSent() {
        var standing = LeaseStanding(lease: 10, since: 100)
        // Sent at 108, answered later: the lease in Redis restarted no earlier than 108.
        standing.renewed(sentAt: 108)
        XCTAssertEqual(standing.verdict(at: 112.99), .holds)
        XCTAssertEqual(standing.verdict(at: 113), .noNewAttempts)
        XCTAssertEqual(standing.verdict(at: 118), .lapsed)
    }

    func testALateAnswerToAnOlderRenewalMovesNothingBack() {
        var standing = LeaseStanding(lease: 10, since: 100)
        standing.renewed(sentAt: 120)
        standing.renewed(sentAt: 111)
        XCTAssertEqual(standing.renewalSentAt, 120)
        XCTAssertEqual(standing.verdict(at: 124), .holds)
    }

    func testALapsedLeaseHoldsAgainOnceARenewalIsTaken() {
        var standing = LeaseStanding(lease: 10, since: 100)
        XCTAssertEqual(standing.verdict(at: 130), .lapsed)
        standing.renewed(sentAt: 130)
        XCTAssertEqual(standing.verdict(at: 130.5), .holds)
    }
}
