import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// A long run: 100,000 jobs through the history store (what the dispatcher sends it: a line per
/// state change, here two per job, and the oldest finished job leaving memory past 500), with
/// bounds small enough to be reached many times. The files stay within the bounds at every point
/// and the newest jobs stay pageable. About 10 s in a debug build, nearly all of it encoding JSON.
final class HistoryBoundTests: XCTestCase {
    /// Under ThreadSanitizer every access is instrumented (5 to 15 times slower): there the run is a
    /// fifth as long, with bounds scaled alike, which still crosses every bound many times.
    private static let total = dlsym(nil, "__tsan_init") != nil ? 20_000 : 100_000

    private static func id(_ number: Int) -> JobID { JobID(String(format: "j-%07d", number)) }

    func testHistoryStaysBoundedOverAHundredThousandJobs() throws {
        let total = Self.total
        let retained = 500
        let directory = makeTemporaryDirectory()
        let limits = HistoryLimits(
            archivedJobs: total / 5, maxSegmentJobs: total / 100, segmentBytes: 1 << 20, journalFloorBytes: 64 << 10)
        let store = HistoryStore(directory: directory.url, limits: limits) { XCTFail($0) }
        XCTAssertEqual(store.load(), [])
        var inMemory: [JobRecord] = []
        for number in 0..<total {
            var record = JobRecord(
                id: Self.id(number), kind: [JobKind.sort, .fetch, .search][number % 3], params: ["count": .int(Int64(number))],
                createdAt: 1_800_000_000_000 + Int64(number))
            store.record(record)
            try record.move(to: .running)
            record.startedAt = record.createdAt
            try record.move(to: number % 10 == 0 ? .failed : .succeeded)
            record.finishedAt = record.createdAt + 5
            record.summary = ["count": .int(Int64(number))]
            store.record(record)
            inMemory.append(record)
            if inMemory.count > retained { store.forget([inMemory.removeFirst()]) }
            if number % 5_000 == 4_999 {
                // Lines only grow with the numbers in them; 16 bytes cover the longer kind and state names.
                let longestLine = JSONWriter.encode(record.json).count + 1 + 16
                let usage = store.diskUsage()
                XCTAssertLessThanOrEqual(usage.journalBytes, max(limits.journalFloorBytes, 4 * retained * longestLine) + longestLine)
                XCTAssertLessThanOrEqual(usage.archiveSegments.count, limits.closedSegmentsKept + 1)
                XCTAssertLessThanOrEqual(usage.archiveSegments.values.reduce(0, +), limits.archiveByteBound)
            }
        }
        store.flush()
        let usage = store.diskUsage()
        XCTAssertEqual(usage.archiveSegments.count, limits.closedSegmentsKept + 1)
        XCTAssertLessThan(usage.compactions, total / 100, "the journal is not rewritten per job")
        XCTAssertGreaterThan(usage.compactions, 2, "but it is compacted as it grows")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted(), ["history", "jobs.jsonl"])

        func page(_ query: HistoryQuery) -> HistoryPage {
            let done = DispatchSemaphore(value: 0)
            let answer = Protected<HistoryPage?>(nil)
            var picker = HistoryPicker(query)
            picker.offerMemory(inMemory)
            store.page(picker) { page in
                answer.withLock { $0 = page }
                done.signal()
            }
            done.wait()
            return answer.withLock { $0! }
        }
        // The newest jobs, in memory and then archived, newest first across pages.
        var query = HistoryQuery(limit: 500)
        var seen: [JobID] = []
        for _ in 0..<4 {
            let result = page(query)
            seen += result.jobs.map(\.id)
            query.before = result.next
        }
        XCTAssertEqual(seen, (total - 2_000..<total).reversed().map(Self.id))
        // Deep in history: the oldest job the bound promises is there; older ones may be gone, the first surely is.
        let oldestKept = total - retained - limits.archivedJobs
        let deep = page(
            HistoryQuery(before: HistoryCursor(createdAt: 1_800_000_000_000 + Int64(oldestKept) + 3, id: JobID("j-")), limit: 10))
        XCTAssertEqual(deep.jobs.prefix(3).map(\.id), (oldestKept..<oldestKept + 3).reversed().map(Self.id))
        XCTAssertEqual(page(HistoryQuery(before: HistoryCursor(createdAt: 1_800_000_000_001, id: JobID("j-")))).jobs, [])
        // Every 10th job failed and every 3rd is a sort: the newest failed sorts are multiples of 30.
        let newestFailedSort = (total - 1) / 30 * 30
        let failed = page(HistoryQuery(states: [.failed], kinds: [.sort], limit: 2))
        XCTAssertEqual(failed.jobs.map(\.id), [Self.id(newestFailedSort), Self.id(newestFailedSort - 30)])

        // A restart loads only the jobs that were in memory.
        XCTAssertEqual(HistoryStore(directory: directory.url, limits: limits) { XCTFail($0) }.load(), inMemory)
    }
}
