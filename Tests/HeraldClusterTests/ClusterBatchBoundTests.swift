import XCTest

@testable import HeraldCluster

/// A batch is what is waiting, up to a count and a byte bound, and never empty when something waits.
final class ClusterBatchBoundTests: XCTestCase {
    let bound = ClusterBatchBound(count: 4, bytes: 100)

    func testTakesEverythingWaitingUnderTheBounds() {
        XCTAssertEqual(bound.size(ofEncodings: []), 0)
        XCTAssertEqual(bound.size(ofEncodings: [10]), 1)
        XCTAssertEqual(bound.size(ofEncodings: [10, 20, 30]), 3)
    }

    func testStopsAtTheCount() {
        XCTAssertEqual(bound.size(ofEncodings: Array(repeating: 1, count: 9)), 4)
    }

    func testStopsBeforeTheEventThatWouldPassTheBytes() {
        XCTAssertEqual(bound.size(ofEncodings: [40, 60, 1]), 2, "exactly the bound is taken")
        XCTAssertEqual(bound.size(ofEncodings: [40, 61, 1]), 1)
    }

    func testAnEventLargerThanTheBytesGoesAlone() {
        XCTAssertEqual(bound.size(ofEncodings: [500, 1]), 1)
        XCTAssertEqual(bound.size(ofEncodings: [1, 500]), 1)
    }

    func testThePublishersBoundIsWhatItSays() {
        XCTAssertEqual(ClusterBatchBound.publisher.size(ofEncodings: Array(repeating: 400, count: 10_000)), 512)
        XCTAssertEqual(ClusterBatchBound.publisher.size(ofEncodings: Array(repeating: 64 << 10, count: 100)), 16)
    }
}
