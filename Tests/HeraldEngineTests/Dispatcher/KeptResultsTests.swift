import HeraldTestSupport
import XCTest

@testable import HeraldEngine

final class KeptResultsTests: XCTestCase {
    private let small: JSONValue = ["file": "a.txt", "line": 1, "text": "x"]
    private let large: JSONValue = ["file": "a.txt", "line": 2, "text": .string(String(repeating: "y", count: 500))]

    func testWeighsEachJobByTheEncodingOfWhatItKeeps() {
        var kept = KeptResults()
        let (a, b) = (JobID("j-a"), JobID("j-b"))
        kept.append([small, large], for: a)
        kept.append([small], for: b)
        kept.append([small], for: a)
        let (smallBytes, largeBytes) = (JSONWriter.encode(small).count, JSONWriter.encode(large).count)
        XCTAssertEqual(kept[a], [small, large, small])
        XCTAssertEqual(kept.count(of: a), 3)
        XCTAssertEqual(kept.bytes(of: a), 2 * smallBytes + largeBytes)
        XCTAssertEqual(kept.bytes(of: b), smallBytes)
        XCTAssertEqual(kept.totalBytes, 3 * smallBytes + largeBytes)
    }

    func testRemovingAJobTakesItsWeightOffTheTotal() {
        var kept = KeptResults()
        let (a, b) = (JobID("j-a"), JobID("j-b"))
        kept.append([large], for: a)
        kept.append([small], for: b)
        kept.remove(a)
        kept.remove(JobID("j-never"))
        XCTAssertEqual(kept[a], [])
        XCTAssertEqual(kept.count(of: a), 0)
        XCTAssertEqual(kept.bytes(of: a), 0)
        XCTAssertEqual(kept.totalBytes, JSONWriter.encode(small).count)
    }

    func testAppendingNothingKeepsNoEntry() {
        var kept = KeptResults()
        kept.append([], for: JobID("j-a"))
        XCTAssertEqual(kept.totalBytes, 0)
        XCTAssertEqual(kept.count(of: JobID("j-a")), 0)
    }
}
