import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// The archive's files: rotation within its bounds, a torn last line after a crash, pages read
/// back from the segments.
final class HistoryArchiveTests: XCTestCase {
    private func job(_ number: Int, padding: Int = 0) -> JobRecord {
        JobRecord(
            id: JobID(String(format: "j-%06d", number)), kind: number % 2 == 0 ? .sort : .fetch,
            params: padding > 0 ? ["pad": .string(String(repeating: "x", count: padding))] : [:], state: .succeeded,
            createdAt: 1_000_000 + Int64(number), finishedAt: 1_000_001 + Int64(number))
    }

    private func entry(_ record: JobRecord) -> (key: HistoryCursor, line: [UInt8]) {
        (HistoryCursor(record), JSONWriter.encode(record.json) + [UInt8(ascii: "\n")])
    }

    private func segments(_ folder: URL) -> [String: Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var sizes: [String: Int] = [:]
        for name in names {
            sizes[name] = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size]) as? Int
        }
        return sizes
    }

    private func page(_ archive: HistoryArchive, _ query: HistoryQuery) -> HistoryPage {
        var picker = HistoryPicker(query)
        HistoryArchive.read(archive.view(), into: &picker, summaries: archive.summaries) { XCTFail($0) }
        return picker.page()
    }

    func testRotationKeepsTheNewestJobsWithinTheBound() throws {
        let folder = makeTemporaryDirectory().url.appendingPathComponent("history")
        let limits = HistoryLimits(archivedJobs: 25, maxSegmentJobs: 10, segmentBytes: 1 << 20)
        var archive = HistoryArchive.open(folder: folder, limits: limits, summaries: .init()) { XCTFail($0) }
        XCTAssertEqual(segments(folder), [:], "nothing is made before the first job")
        for number in 1...95 { XCTAssertNil(archive.append([entry(job(number))])) }
        // 3 closed segments of 10 (enough for 25) and the current one with 5.
        XCTAssertEqual(archive.closed, [7, 8, 9])
        XCTAssertEqual(archive.current, 10)
        XCTAssertEqual(archive.currentJobs, 5)
        XCTAssertEqual(Set(segments(folder).keys), Set((7...10).map(HistoryArchive.name)))
        let all = page(archive, HistoryQuery(limit: 500))
        XCTAssertEqual(all.jobs.map(\.id), (61...95).reversed().map { job($0).id }, "the newest 35, newest first")
        XCTAssertNil(all.next)

        // Batches split at the bound too, and a reopened archive goes on where it was.
        archive.close()
        var reopened = HistoryArchive.open(folder: folder, limits: limits, summaries: .init()) { XCTFail($0) }
        XCTAssertEqual(reopened.currentJobs, 5)
        XCTAssertNil(reopened.append((96...120).map { entry(job($0)) }))
        XCTAssertEqual(reopened.closed, [9, 10, 11])
        XCTAssertEqual(reopened.current, 12)
        XCTAssertEqual(reopened.currentJobs, 10, "full: the next job starts segment 13")
        XCTAssertEqual(page(reopened, HistoryQuery(limit: 2)).jobs.map(\.id), [job(120).id, job(119).id])
    }

    func testBytesCloseASegmentEarlyAndTheTotalStaysBounded() {
        let folder = makeTemporaryDirectory().url.appendingPathComponent("history")
        let limits = HistoryLimits(archivedJobs: 100, maxSegmentJobs: 50, segmentBytes: 4096)
        var archive = HistoryArchive.open(folder: folder, limits: limits, summaries: .init()) { XCTFail($0) }
        for number in 1...400 { XCTAssertNil(archive.append([entry(job(number, padding: 700))])) }
        let sizes = segments(folder)
        XCTAssertLessThanOrEqual(sizes.count, limits.closedSegmentsKept + 1)
        XCTAssertTrue(sizes.values.allSatisfy { $0 <= 4096 }, "\(sizes)")
        XCTAssertLessThanOrEqual(sizes.values.reduce(0, +), limits.archiveByteBound)
        // One job larger than a segment still gets archived, alone.
        XCTAssertNil(archive.append([entry(job(401, padding: 10_000))]))
        XCTAssertEqual(archive.currentJobs, 1)
        XCTAssertEqual(page(archive, HistoryQuery(limit: 1)).jobs.first?.id, job(401).id)
    }

    func testATornLastLineIsCutAndReportedOnOpen() throws {
        let folder = makeTemporaryDirectory().url.appendingPathComponent("history")
        let limits = HistoryLimits(archivedJobs: 100, maxSegmentJobs: 10)
        var archive = HistoryArchive.open(folder: folder, limits: limits, summaries: .init()) { XCTFail($0) }
        XCTAssertNil(archive.append((1...3).map { entry(job($0)) }))
        archive.close()
        let url = folder.appendingPathComponent(HistoryArchive.name(1))
        let whole = try Data(contentsOf: url)
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"id":"j-000004","kind":"so"#.utf8))
        try handle.close()

        var reports: [String] = []
        var reopened = HistoryArchive.open(folder: folder, limits: limits, summaries: .init()) { reports.append($0) }
        XCTAssertEqual(reports.count, 1)
        XCTAssertTrue(reports[0].contains("dropped a torn last line (27 bytes) at the end of archive-00000001.jsonl"), reports[0])
        XCTAssertEqual(try Data(contentsOf: url), whole, "cut back to the last whole line")
        XCTAssertNil(reopened.append([entry(job(4))]))
        XCTAssertEqual(page(reopened, HistoryQuery(limit: 10)).jobs.map(\.id), (1...4).reversed().map { job($0).id })
    }

    func testOffDeletesTheSegments() {
        let folder = makeTemporaryDirectory().url.appendingPathComponent("history")
        var archive = HistoryArchive.open(folder: folder, limits: HistoryLimits(archivedJobs: 10), summaries: .init()) { XCTFail($0) }
        XCTAssertNil(archive.append((1...30).map { entry(job($0)) }))
        archive.close()
        var reports: [String] = []
        var off = HistoryArchive.open(folder: folder, limits: HistoryLimits(archivedJobs: 0), summaries: .init()) { reports.append($0) }
        XCTAssertEqual(segments(folder), [:])
        XCTAssertEqual(reports, ["history: the archive is off (--history-jobs 0): 2 segment(s) deleted"])
        XCTAssertNil(off.append([entry(job(31))]))
        XCTAssertEqual(segments(folder), [:], "and nothing is archived")
    }
}
