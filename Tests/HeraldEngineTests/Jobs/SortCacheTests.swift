import Foundation
@testable import HeraldEngine
import HeraldTestSupport
import XCTest

/// The sort cache on real files: what it finds at start-up, what sorts and pages leave in the data
/// directory under a small `--sort-cache-bytes`, and that a file in use stays.
final class SortCacheTests: XCTestCase {
    /// The size of one count's file: the 24-byte header and 4 bytes a value.
    private func fileBytes(_ count: Int) -> Int { 24 + 4 * count }

    private func code(_ result: Result<ResultPage, EngineError>) -> ErrorCode? {
        guard case .failure(let error) = result else { return nil }
        return error.code
    }

    private func sortFiles(_ directory: URL) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".bin") }
    }

    private func bytesOnDisk(_ directory: URL) -> Int {
        sortFiles(directory).reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    func testLoadCountsEarlierFilesAndRemovesTheOldestWrittenPastTheBound() throws {
        let directory = makeTemporaryDirectory().url
        let manager = FileManager.default
        // Written long ago first: sorted-2 is the oldest although its name sorts last.
        let files: [(String, Int, TimeInterval)] = [
            ("sorted-2.bin", 300, 1000), ("numbers-1.bin", 300, 2000), ("numbers-2.bin", 300, 3000), ("sorted-1.bin", 300, 4000),
        ]
        for (name, bytes, written) in files {
            let url = directory.appendingPathComponent(name)
            try Data(count: bytes).write(to: url)
            try manager.setAttributes([.modificationDate: Date(timeIntervalSince1970: written)], ofItemAtPath: url.path)
        }
        // Not sort data: neither counted nor removed.
        let others = ["jobs.jsonl", "numbers-x.bin", "numbers-01.bin", "sorted-.bin", "numbers-5.bin.tmp-1", "notes.txt"]
        for name in others { try Data(count: 5000).write(to: directory.appendingPathComponent(name)) }
        try manager.createDirectory(at: directory.appendingPathComponent("numbers-777.bin"), withIntermediateDirectories: false)

        let cache = SortCache(directory: directory, limitBytes: 700)
        XCTAssertEqual(cache.figures, SortCacheFigures(limitBytes: 700), "nothing is read before load")
        cache.load()
        XCTAssertEqual(cache.figures, SortCacheFigures(bytes: 600, files: 2, evictions: 2, limitBytes: 700))
        let left = Set(try manager.contentsOfDirectory(atPath: directory.path))
        XCTAssertEqual(left, Set(others + ["numbers-2.bin", "sorted-1.bin", "numbers-777.bin"]))

        cache.load()
        XCTAssertEqual(cache.figures.evictions, 2, "the directory is listed once")
    }

    func testNoBoundKeepsEverything() throws {
        let fixture = makeFixture(runnerConfiguration(), sortCacheBytes: 0)
        for count in [1000, 2000, 3000] { XCTAssertEqual(try fixture.run(.sort, ["count": .int(Int64(count))]).state, .succeeded) }
        XCTAssertEqual(sortFiles(fixture.data).count, 6)
        let figures = fixture.dispatcher.currentStatistics().sortCache
        XCTAssertEqual(figures, SortCacheFigures(bytes: 2 * (4024 + 8024 + 12024), files: 6, evictions: 0, limitBytes: 0))
    }

    /// Sorts of four counts under a 45,000-byte bound, with a page of the second sort read between
    /// the third and the fourth: the page makes `sorted-2000.bin` more recent than the third sort's
    /// files, so they go and it stays.
    func testSortsStayWithinTheBoundLeastRecentlyUsedOutFirst() throws {
        let fixture = makeFixture(runnerConfiguration(), sortCacheBytes: 45_000)
        var jobs: [Int: JobRecord] = [:]
        for count in [1000, 2000, 3000] {
            jobs[count] = try fixture.run(.sort, ["count": .int(Int64(count))])
            XCTAssertEqual(jobs[count]?.state, .succeeded, jobs[count]?.error ?? "")
        }
        XCTAssertEqual(
            sortFiles(fixture.data), ["sorted-1000.bin", "numbers-2000.bin", "sorted-2000.bin", "numbers-3000.bin", "sorted-3000.bin"])
        XCTAssertEqual(try fixture.dispatcher.page(job: jobs[2000]!.id.rawValue, offset: 0, limit: 5).get().total, 2000)
        jobs[4000] = try fixture.run(.sort, ["count": 4000])

        XCTAssertEqual(sortFiles(fixture.data), ["sorted-2000.bin", "numbers-4000.bin", "sorted-4000.bin"])
        XCTAssertLessThanOrEqual(bytesOnDisk(fixture.data), 45_000)
        let figures = fixture.dispatcher.currentStatistics().sortCache
        XCTAssertEqual(figures, SortCacheFigures(bytes: bytesOnDisk(fixture.data), files: 3, evictions: 5, limitBytes: 45_000))

        for count in [1000, 3000] {
            let refused = fixture.dispatcher.page(job: jobs[count]!.id.rawValue, offset: 0, limit: 5)
            XCTAssertEqual(code(refused), .gone, "\(count)")
            guard case .failure(let error) = refused else { continue }
            XCTAssertEqual(error.message, "the sorted values (sorted-\(count).bin) are gone; run the sort again")
        }
        for count in [2000, 4000] {
            let page = try fixture.dispatcher.page(job: jobs[count]!.id.rawValue, offset: 0, limit: 5).get()
            XCTAssertEqual(page.values.first?.intValue, jobs[count]?.summary?["min"]?.intValue, "\(count)")
        }

        // A sort of an evicted count makes its data again; a page of it works once more.
        let again = try fixture.run(.sort, ["count": 1000])
        XCTAssertEqual(again.summary?["created"], true)
        XCTAssertEqual(try fixture.dispatcher.page(job: again.id.rawValue, offset: 0, limit: 1).get().total, 1000)
    }

    func testAFileRemovedByHandNoLongerCountsOnceAPageFindsItGone() throws {
        let fixture = makeFixture(runnerConfiguration())
        let job = try fixture.run(.sort, ["count": 1000])
        XCTAssertEqual(fixture.dispatcher.currentStatistics().sortCache.files, 2)
        try FileManager.default.removeItem(at: fixture.data.appendingPathComponent("sorted-1000.bin"))
        XCTAssertEqual(code(fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 5)), .gone)
        let figures = fixture.dispatcher.currentStatistics().sortCache
        XCTAssertEqual(figures, SortCacheFigures(bytes: 4024, files: 1, evictions: 0, limitBytes: SortCache.defaultLimitBytes))
    }

    /// A bound smaller than one file: the sort's own files are in use while it runs, so they stay
    /// (the total is over the bound meanwhile) and go when it ends.
    func testAFileInUseIsKeptPastTheBound() throws {
        let seen = Protected<[String: Set<String>]>([:])
        let data = Protected<URL?>(nil)
        let runner = SortRunner { context, phase in
            let names = Set((try? FileManager.default.contentsOfDirectory(atPath: context.environment.dataDirectory.path)) ?? [])
            seen.withLock { $0[phase] = names.filter { $0.hasSuffix(".bin") } }
            data.withLock { $0 = context.environment.dataDirectory }
        }
        let fixture = makeFixture(runnerConfiguration(), runners: [runner], sortCacheBytes: 1000)
        let job = try fixture.run(.sort, ["count": 3000])
        XCTAssertEqual(job.state, .succeeded, job.error ?? "")
        let phases = seen.withLock { $0 }
        XCTAssertEqual(phases["sorting"], ["numbers-3000.bin"], "the input stays while the sort uses it: \(phases)")
        XCTAssertEqual(data.withLock { $0 }, fixture.data)
        XCTAssertEqual(sortFiles(fixture.data), [], "both go once the sort is done")
        XCTAssertEqual(
            fixture.dispatcher.currentStatistics().sortCache, SortCacheFigures(bytes: 0, files: 0, evictions: 2, limitBytes: 1000))
        XCTAssertEqual(code(fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 5)), .gone)
    }
}
