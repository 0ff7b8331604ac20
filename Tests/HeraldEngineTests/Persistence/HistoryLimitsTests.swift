import HeraldEngine
import HeraldTestSupport
import XCTest

/// The rotation and compaction rules as plain arithmetic.
final class HistoryLimitsTests: XCTestCase {
    func testDefaultsKeepAHundredThousandJobsInBoundedFiles() {
        let limits = HistoryLimits()
        XCTAssertEqual(limits.archivedJobs, 100_000)
        XCTAssertEqual(limits.segmentJobs, 2_000)
        XCTAssertEqual(limits.closedSegmentsKept, 50)
        XCTAssertEqual(limits.archiveByteBound, 51 * 4 * 1024 * 1024)
    }

    func testSmallArchivesGetSmallSegments() {
        XCTAssertEqual(HistoryLimits(archivedJobs: 40).segmentJobs, 40)
        XCTAssertEqual(HistoryLimits(archivedJobs: 40).closedSegmentsKept, 1)
        XCTAssertEqual(HistoryLimits(archivedJobs: 4_500).closedSegmentsKept, 3, "rounded up: at least the jobs asked for")
        XCTAssertEqual(HistoryLimits(archivedJobs: 0).closedSegmentsKept, 0)
        XCTAssertEqual(HistoryLimits(archivedJobs: 0).archiveByteBound, 0)
    }

    func testASegmentClosesAtItsJobsOrItsBytes() {
        let limits = HistoryLimits(archivedJobs: 100, maxSegmentJobs: 10, segmentBytes: 1000)
        XCTAssertFalse(limits.mustRotate(jobs: 0, bytes: 0, adding: 5000), "an empty segment takes even an oversized job")
        XCTAssertFalse(limits.mustRotate(jobs: 9, bytes: 900, adding: 100))
        XCTAssertTrue(limits.mustRotate(jobs: 10, bytes: 100, adding: 10), "full of jobs")
        XCTAssertTrue(limits.mustRotate(jobs: 3, bytes: 900, adding: 101), "would pass its bytes")
    }

    func testTheOldestClosedSegmentsBeyondTheBoundAreDeleted() {
        let limits = HistoryLimits(archivedJobs: 30, maxSegmentJobs: 10)
        XCTAssertEqual(limits.closedSegmentsKept, 3)
        XCTAssertEqual(limits.segmentsToDelete(closed: [7, 3, 4, 5, 6]), [3, 4])
        XCTAssertEqual(limits.segmentsToDelete(closed: [1, 2, 3]), [])
        XCTAssertEqual(HistoryLimits(archivedJobs: 0).segmentsToDelete(closed: [1, 2]), [1, 2])
    }

    func testTheJournalIsRewrittenOnlyOnceItHasGrownToAMultiple() {
        let limits = HistoryLimits(journalGrowthFactor: 4, journalFloorBytes: 1000)
        XCTAssertFalse(limits.mustCompactJournal(fileBytes: 1000, liveBytes: 10), "under the floor")
        XCTAssertTrue(limits.mustCompactJournal(fileBytes: 1001, liveBytes: 10))
        XCTAssertFalse(limits.mustCompactJournal(fileBytes: 40_000, liveBytes: 10_000))
        XCTAssertTrue(limits.mustCompactJournal(fileBytes: 40_001, liveBytes: 10_000))
    }
}
