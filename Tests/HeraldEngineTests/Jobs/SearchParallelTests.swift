import Dispatch
import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// A search on several threads, its files split into ranges, against the same search on one thread
/// (`--search-threads 1`, the scan as it always ran): the same matches in the same order, the same
/// summary; the first `--max-results` in that order when capped; and a cancel that stops every thread.
/// Parts of 1,000 bytes and buffers of 256 put split points and chunk edges all over a small corpus.
final class SearchParallelTests: XCTestCase {
    private let partBytes: Int64 = 1000

    private func lines(_ sink: CollectingSink) -> [String] {
        sink.all.map { "\($0["file"]?.stringValue ?? "?"):\($0["line"]?.intValue ?? -1): \($0["text"]?.stringValue ?? "?")" }
    }

    /// Runs one scan; returns what it streamed, "file:line: text" per match, and its summary.
    private func search(
        _ files: [SearchFile], in folder: URL, threads: Int, caseSensitive: Bool, maxResults: Int = .max, bufferSize: Int = 256
    ) -> ([String], JSONObject) {
        let sink = CollectingSink()
        let context = makeStandaloneContext(.search, searchRoot: folder, maxSearchResults: maxResults, sink: sink)
        let scan = SearchScan(
            context: context, matcher: LineMatcher(query: SearchCorpus.query, caseSensitive: caseSensitive), files: files,
            threads: threads, bufferSize: bufferSize, partBytes: partBytes, bytesPerThread: 1)
        if threads > 1 { XCTAssertGreaterThan(scan.parts.count, files.count, "some files are split") }
        scan.scanAll()
        scan.flush()
        return (lines(sink), scan.summary)
    }

    func testSeveralThreadsFindWhatOneFindsInTheSameOrder() throws {
        let directory = makeTemporaryDirectory()
        let corpus = SearchCorpus(seed: 7, partBytes: partBytes)
        let files = try corpus.write(to: directory.url)
        XCTAssertGreaterThan(corpus.straddling.count, 10, "matches across split points")
        for caseSensitive in [true, false] {
            let (serial, serialSummary) = search(files, in: directory.url, threads: 1, caseSensitive: caseSensitive)
            let found = Set(serial.map { $0.split(separator: ":").prefix(2).joined(separator: ":") })
            // f07.txt: lines of 100 bytes in parts of 1,000, so line 11 starts at a split point, and
            // line 10 ends just before it; both hold the query.
            for line in corpus.straddling + ["f07.txt:10", "f07.txt:11", "f07.txt:21", "f07.txt:31"] {
                XCTAssertTrue(found.contains(line), "\(line), caseSensitive \(caseSensitive)")
            }
            XCTAssertGreaterThan(serial.count, caseSensitive ? 20 : 40)
            for threads in [2, 3, 8] {
                for bufferSize in [256, 4096] {
                    let (parallel, summary) = search(
                        files, in: directory.url, threads: threads, caseSensitive: caseSensitive, bufferSize: bufferSize)
                    let label = "threads \(threads), buffer \(bufferSize), caseSensitive \(caseSensitive)"
                    XCTAssertEqual(parallel, serial, label)
                    XCTAssertEqual(summary, serialSummary, label)
                }
            }
        }
    }

    /// Capped: the first matches in file and line order, not the first found; the count goes on.
    func testTheCapKeepsTheFirstMatchesInOrder() throws {
        let directory = makeTemporaryDirectory()
        let files = try SearchCorpus(seed: 8, partBytes: partBytes).write(to: directory.url)
        let (all, _) = search(files, in: directory.url, threads: 1, caseSensitive: false)
        for cap in [1, 7, 150] {
            let (capped, summary) = search(files, in: directory.url, threads: 4, caseSensitive: false, maxResults: cap)
            XCTAssertEqual(capped, Array(all.prefix(cap)), "cap \(cap)")
            XCTAssertEqual(summary["matches"], .int(Int64(all.count)), "cap \(cap)")
            XCTAssertEqual(summary["capped"], .bool(all.count > cap), "cap \(cap)")
        }
    }

    /// The plan's ranges cover each file once, in order; only files of two parts or more are split.
    func testPlanCoversEachFileInOrder() {
        let files = [0, 10, 1999, 2000, 4321, 10_000].map { SearchFile(path: "/", relative: "f\($0)", size: Int64($0)) }
        XCTAssertEqual(SearchPart.plan(files, threads: 1, partBytes: 1000).count, files.count)
        let parts = SearchPart.plan(files, threads: 2, partBytes: 1000)
        for (index, file) in files.enumerated() {
            let mine = parts.filter { $0.file == index }
            XCTAssertEqual(mine.count, max(1, Int(file.size) / 1000), file.relative)
            XCTAssertEqual(mine.first?.start, 0)
            XCTAssertNil(mine.last?.end)
            XCTAssertEqual(mine.reduce(0) { $0 + $1.listedBytes }, file.size, file.relative)
            for (earlier, later) in zip(mine, mine.dropFirst()) { XCTAssertEqual(earlier.end, later.start) }
        }
        XCTAssertEqual(parts.map(\.file), parts.map(\.file).sorted())
    }

    /// A sink that cancels the job when the first batch arrives, on the thread that streams it: the
    /// cancel lands while every other thread is mid-corpus, with no wait for the test's thread to
    /// wake up.
    private final class CancellingSink: JobEventSink {
        let context = Locked<JobContext?>(nil)
        let items = Locked<[JSONValue]>([])

        func results(job: JobID, items: [JSONValue]) {
            self.items.withLock { $0.append(contentsOf: items) }
            context.withLock { $0 }?.requestCancel()
        }
        func news(job: JobID, headlines: [String]) {}
        func log(job: JobID, lines: [LogLine], skipped: Int, first: Int) {}
        func uncoalescedProgress(job: JobID, _ progress: JobProgress) -> Bool { true }
    }

    func testCancelStopsEveryThread() throws {
        let directory = makeTemporaryDirectory()
        // The first file matches on every line, so a batch goes out at once; then 64 files of 256 KiB
        // where every 16th byte is a candidate that fails (slow on purpose), in parts of 16 KiB.
        var files: [SearchFile] = []
        let matching = String(repeating: "a qz-Needle line\n", count: 200)
        let slowLine = String(String(repeating: "qzaaaaaaaaaaaaaa", count: 8).dropLast()) + "\n"
        let slow = String(repeating: slowLine, count: 2048)
        for (index, text) in ([matching] + Array(repeating: slow, count: 64)).enumerated() {
            let url = directory.url.appendingPathComponent("f\(index).txt")
            try Data(text.utf8).write(to: url)
            files.append(SearchFile(path: url.path, relative: "f\(index).txt", size: Int64(text.utf8.count)))
        }
        let listed = files.reduce(Int64(0)) { $0 + $1.size }
        let sink = CancellingSink()
        let environment = JobEnvironment(
            searchRoot: directory.url, dataDirectory: directory.url, newsSource: NewsSource(probability: 0, seed: 1), maxSearchResults: 1000
        )
        let context = JobContext(
            record: JobRecord(id: JobID("j-cancel"), kind: .search, params: [:], createdAt: 0), environment: environment,
            progress: ProgressReporter {}, sink: sink)
        sink.context.withLock { $0 = context }
        let scan = SearchScan(
            context: context, matcher: LineMatcher(query: "qz-needle", caseSensitive: false), files: files, threads: 4,
            partBytes: 16 << 10, bytesPerThread: 1)
        XCTAssertEqual(scan.threads, 4)
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            scan.scanAll()
            ended.signal()
        }
        XCTAssertEqual(ended.wait(timeout: .now() + 60), .success, "the threads did not stop")
        XCTAssertTrue(context.isCancelled, "no batch came")
        scan.flush()
        guard case .int(let bytes) = scan.summary["bytes"] else { return XCTFail("no bytes in \(scan.summary)") }
        XCTAssertLessThan(bytes, listed / 2, "the threads stopped early")
        // What was streamed is the start of the matches in order.
        let found = sink.items.withLock { $0 }.map { $0["line"]?.intValue ?? -1 }
        XCTAssertEqual(found, Array(1...Int64(found.count)))
        XCTAssertEqual(found.first, 1)
    }
}
