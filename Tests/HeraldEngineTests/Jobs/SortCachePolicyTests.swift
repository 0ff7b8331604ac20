@testable import HeraldEngine
import HeraldTestSupport
import XCTest

/// The sort cache's pure policy: which files go, in what order, and which never do.
final class SortCachePolicyTests: XCTestCase {
    func testTheLeastRecentlyStoredGoesFirstUntilWithinTheBound() {
        var policy = SortCachePolicy(limitBytes: 100)
        for name in ["a", "b", "c"] { policy.stored(name, bytes: 40) }
        XCTAssertEqual(policy.evict(), ["a"])
        XCTAssertEqual(policy.totalBytes, 80)
        XCTAssertEqual(policy.fileCount, 2)
        policy.stored("d", bytes: 90)
        XCTAssertEqual(policy.evict(), ["b", "c"])
        XCTAssertEqual(policy.namesByUse, ["d"])
        XCTAssertEqual(policy.evictions, 3)
    }

    func testAUseMakesAFileTheMostRecent() {
        var policy = SortCachePolicy(limitBytes: 100)
        for name in ["a", "b"] { policy.stored(name, bytes: 40) }
        policy.touch("a")
        policy.stored("c", bytes: 40)
        XCTAssertEqual(policy.evict(), ["b"])
        XCTAssertEqual(policy.namesByUse, ["a", "c"])

        // The end of a use counts as a use too (a page read, a sort's run).
        policy.beginUse("a")
        policy.endUse("a")
        XCTAssertEqual(policy.namesByUse, ["c", "a"])
    }

    func testAFileInUseIsNeverEvicted() {
        var policy = SortCachePolicy(limitBytes: 100)
        policy.stored("old", bytes: 60)
        policy.beginUse("old")
        policy.beginUse("old")
        policy.stored("new", bytes: 30)
        policy.stored("newer", bytes: 30)
        XCTAssertEqual(policy.evict(), ["new"], "the oldest is in use: the next least recent goes")
        policy.stored("big", bytes: 200)
        XCTAssertEqual(policy.evict(), ["newer", "big"])
        XCTAssertEqual(policy.namesByUse, ["old"])

        // Over the bound while only files in use are left: nothing more can go.
        policy.beginUse("huge")
        policy.stored("huge", bytes: 500)
        XCTAssertEqual(policy.evict(), [])
        XCTAssertEqual(policy.totalBytes, 560)

        // Two users: it stays in use until both are done.
        policy.endUse("old")
        XCTAssertTrue(policy.isInUse("old"))
        XCTAssertEqual(policy.evict(), [])
        policy.endUse("old")
        XCTAssertFalse(policy.isInUse("old"))
        XCTAssertEqual(policy.evict(), ["old"], "no longer in use, and the least recently used")
        XCTAssertEqual(policy.totalBytes, 500, "the file in use alone is over the bound")
        policy.endUse("huge")
        XCTAssertEqual(policy.evict(), ["huge"])
        XCTAssertEqual(policy.totalBytes, 0)
    }

    func testNoBoundWhenTheLimitIsZero() {
        var policy = SortCachePolicy(limitBytes: 0)
        for index in 0..<100 { policy.stored("f\(index)", bytes: 1 << 30) }
        XCTAssertEqual(policy.evict(), [])
        XCTAssertEqual(policy.fileCount, 100)
    }

    func testARewrittenOrMissingFileCountsWhatItHoldsNow() {
        var policy = SortCachePolicy(limitBytes: 100)
        policy.stored("a", bytes: 40)
        policy.stored("a", bytes: 70)
        XCTAssertEqual(policy.totalBytes, 70)
        XCTAssertEqual(policy.fileCount, 1)
        policy.forget("a")
        policy.forget("never")
        XCTAssertEqual(policy.totalBytes, 0)
        XCTAssertEqual(policy.fileCount, 0)
        XCTAssertEqual(policy.evictions, 0, "a file found missing is not an eviction")
    }

    /// Random stores, uses and evictions against a model: after each eviction the total is within
    /// the bound unless only files in use are left, no file in use went, and what went was the least
    /// recently used of the files not in use.
    func testTheBoundHoldsOverRandomTraffic() {
        var generator = SeededGenerator(seed: 7)
        var policy = SortCachePolicy(limitBytes: 1000)
        var inUse: [String: Int] = [:]
        for _ in 0..<5000 {
            let name = "f\(Int.random(in: 0..<20, using: &generator))"
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                policy.beginUse(name)
                inUse[name, default: 0] += 1
            case 1 where inUse[name, default: 0] > 0:
                policy.endUse(name)
                inUse[name]! -= 1
            case 2: policy.touch(name)
            default: policy.stored(name, bytes: Int.random(in: 1...300, using: &generator))
            }
            let before = policy.namesByUse.filter { inUse[$0, default: 0] == 0 }
            let gone = policy.evict()
            XCTAssertEqual(gone, Array(before.prefix(gone.count)), "least recently used first")
            XCTAssertTrue(gone.allSatisfy { inUse[$0, default: 0] == 0 }, "a file in use went")
            let left = policy.namesByUse
            XCTAssertTrue(
                policy.totalBytes <= 1000 || left.allSatisfy { inUse[$0, default: 0] > 0 },
                "over the bound with files not in use: \(policy.totalBytes)")
        }
    }
}
