import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// Picking a history page out of memory and archive segments: order, cursors, filters, duplicates,
/// checked against sorting everything by hand.
final class HistoryPickerTests: XCTestCase {
    private func job(_ number: Int, createdAt: Int64, kind: JobKind = .sort, state: JobState = .succeeded) -> JobRecord {
        JobRecord(
            id: JobID(String(format: "j-%05d", number)), kind: kind, params: [:], state: state, createdAt: createdAt,
            finishedAt: state.isTerminal ? createdAt + 1 : nil)
    }

    /// Many jobs on few distinct times, so ties are common, spread over kinds and states.
    private func corpus(_ count: Int, seed: UInt64) -> [JobRecord] {
        var generator = SeededGenerator(seed: seed)
        let kinds: [JobKind] = [.sort, .fetch, .search]
        let states: [JobState] = [.succeeded, .failed, .cancelled, .interrupted, .running, .queued]
        return (0..<count).map { number in
            job(
                number, createdAt: Int64.random(in: 1_000...1_040, using: &generator),
                kind: kinds.randomElement(using: &generator)!, state: states.randomElement(using: &generator)!)
        }
    }

    private func expected(_ jobs: [JobRecord], _ query: HistoryQuery) -> [JobRecord] {
        jobs.filter { query.admits($0) }.sorted { HistoryCursor($0) > HistoryCursor($1) }
    }

    /// Every page of `query`, following `next`, with memory and archive split as given.
    private func allPages(memory: [JobRecord], archive: [[JobRecord]], _ query: HistoryQuery) -> [HistoryPage] {
        var pages: [HistoryPage] = []
        var query = query
        repeat {
            var picker = HistoryPicker(query)
            picker.offerMemory(memory)
            for segment in archive.reversed() {
                let keys = segment.map(HistoryCursor.init)
                if let oldest = keys.min(), let newest = keys.max(), picker.canSkip(oldest...newest) { continue }
                for record in segment { picker.offer(record) }
            }
            let page = picker.page()
            pages.append(page)
            query.before = page.next
        } while query.before != nil && pages.count < 10_000
        return pages
    }

    func testPagesFollowTheCursorNewestFirstWithTiesByID() {
        let jobs = corpus(300, seed: 7)
        let memory = Array(jobs.suffix(40))
        let archive = stride(from: 0, to: 260, by: 50).map { Array(jobs[$0..<min(260, $0 + 50)]) }
        for limit in [1, 2, 7, 50, 500] {
            let pages = allPages(memory: memory, archive: archive, HistoryQuery(limit: limit))
            let seen = pages.flatMap(\.jobs)
            XCTAssertEqual(seen, expected(jobs, HistoryQuery()), "limit \(limit)")
            XCTAssertTrue(pages.dropLast().allSatisfy { $0.jobs.count == limit && $0.next == HistoryCursor($0.jobs.last!) })
            XCTAssertNil(pages.last?.next, "the last page says there is no more")
        }
    }

    func testFiltersAndTheExactEnd() {
        let jobs = corpus(200, seed: 11)
        let query = HistoryQuery(states: [.failed, .interrupted], kinds: [.fetch], limit: 3)
        let matches = expected(jobs, query)
        XCTAssertGreaterThan(matches.count, 6)
        let pages = allPages(memory: Array(jobs.prefix(20)), archive: [Array(jobs[20..<120]), Array(jobs[120...])], query)
        XCTAssertEqual(pages.flatMap(\.jobs), matches)
        // A page that ends exactly at the last match has no `next`: no empty page follows.
        XCTAssertEqual(pages.count, (matches.count + 2) / 3)
    }

    func testAJobInMemoryHidesItsArchivedCopiesAndCopiesCountOnce() {
        let memory = [job(1, createdAt: 50), job(2, createdAt: 60, state: .running)]
        let stale = JobRecord(id: JobID("j-00001"), kind: .fetch, params: [:], state: .failed, createdAt: 55, finishedAt: 56)
        let twice = job(3, createdAt: 40)
        let pages = allPages(memory: memory, archive: [[twice, stale], [twice, job(4, createdAt: 30)]], HistoryQuery(limit: 1))
        XCTAssertEqual(pages.flatMap(\.jobs).map(\.id.rawValue), ["j-00002", "j-00001", "j-00003", "j-00004"])
        XCTAssertEqual(pages.flatMap(\.jobs)[1].kind, .sort, "memory's copy wins")
    }

    func testSegmentsOutsideThePageAreSkipped() {
        var picker = HistoryPicker(HistoryQuery(before: HistoryCursor(createdAt: 100, id: JobID("j-a")), limit: 2))
        let range = { (low: Int64, high: Int64) in
            HistoryCursor(createdAt: low, id: JobID("j-a"))...HistoryCursor(createdAt: high, id: JobID("j-a"))
        }
        XCTAssertTrue(picker.canSkip(range(100, 200)), "all at or after the cursor")
        XCTAssertFalse(picker.canSkip(range(10, 20)), "nothing kept yet")
        for number in 0..<3 { picker.offer(job(number, createdAt: 90 + Int64(number))) }
        XCTAssertTrue(picker.canSkip(range(10, 20)), "older than a full page (limit + 1) already holds")
        XCTAssertFalse(picker.canSkip(range(10, 95)))
    }
}
