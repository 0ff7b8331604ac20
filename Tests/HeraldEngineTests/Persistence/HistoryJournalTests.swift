import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// Reading `jobs.jsonl`'s bytes: the last line per id, `forgotten` lines, unreadable lines and a
/// torn last line.
final class HistoryJournalTests: XCTestCase {
    private func line(_ record: JobRecord) -> String { JSONWriter.string(record.json) + "\n" }

    private let first = JobRecord(id: JobID("j-first"), kind: .sort, params: [:], state: .succeeded, createdAt: 1, finishedAt: 2)
    private let second = JobRecord(id: JobID("j-second"), kind: .fetch, params: [:], createdAt: 3)

    private func read(_ text: String) -> HistoryJournal.Contents { HistoryJournal.read(Array(text.utf8)) }

    func testForgottenJobsAreNotLoaded() {
        let forgotten = String(decoding: HistoryJournal.forgottenLine([first.id]), as: UTF8.self)
        XCTAssertEqual(forgotten, #"{"forgotten":["j-first"]}"# + "\n")
        let contents = read(line(first) + line(second) + forgotten)
        XCTAssertEqual(contents.records, [second])
        XCTAssertEqual(contents.unreadable, 0)
        XCTAssertNil(contents.tornTail)
    }

    func testATornLastLineIsDroppedNotCountedAsUnreadable() {
        let whole = line(first) + line(second)
        let torn = String(line(second).prefix(17))
        let contents = read(whole + torn)
        XCTAssertEqual(contents.records, [first, second])
        XCTAssertEqual(contents.tornTail, 17)
        XCTAssertEqual(contents.unreadable, 0)
        // A last line that is whole but for its newline is kept.
        XCTAssertEqual(read(line(first) + String(line(second).dropLast())).records, [first, second])
        XCTAssertNil(read(line(first) + String(line(second).dropLast())).tornTail)
    }

    func testUnreadableLinesInTheMiddleAreCounted() {
        let contents = read(line(first) + "{\"id\":\"j-x\",\"ki\n" + "[1,2]\n" + line(second))
        XCTAssertEqual(contents.records, [first, second])
        XCTAssertEqual(contents.unreadable, 2)
        XCTAssertNil(contents.tornTail, "the bad lines end with a newline: not torn, corrupt")
    }
}
