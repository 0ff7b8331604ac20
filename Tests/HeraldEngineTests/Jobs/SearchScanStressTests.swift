import Dispatch
import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// A search's stripes share one batch of matches: a stripe takes it when it is full, and any thread
/// may ask `flushIfDue` to stream it when it is old. `flushIfDue` once read the clock before taking
/// the batch lock, so it could see a batch started after its reading and trap on a UInt64 underflow
/// (debug builds check arithmetic: the crash took the server down mid-search). These tests make
/// those two meet often; before the fix the first crashed in about half of the runs on two cores,
/// the second in every run. Both check that every match is streamed exactly once.
final class SearchScanStressTests: XCTestCase {
    /// Several searches at once, each on several threads where there are several cores, over many
    /// small files (each asks `flushIfDue` once, after its one chunk); each file has a few matches,
    /// so batches fill and are taken while other files are checked.
    func testConcurrentMultiStripeSearchesWithMatchesInEveryFileFindEveryMatch() throws {
        let searchesAtOnce = 4
        let files = 256
        let limit = EngineConfiguration.KindLimit(maxConcurrent: searchesAtOnce, refuseWhenBusy: false)
        let fixture = makeFixture(EngineConfiguration(workers: searchesAtOnce, kindLimits: [.search: limit]), maxSearchResults: 1_000_000)
        var expected: Set<String> = []
        var bytes = 0
        for file in 0..<files {
            var text = ""
            for line in 1...(200 + file % 37) {
                let hit = line % 64 == 0 || line == 7
                text += "f\(file) \(hit ? "Needle" : "hay") \(line) " + String(repeating: "x", count: 20 + (file + line) % 23) + "\n"
                if hit { expected.insert("d\(file % 4)/f\(file).txt:\(line)") }
            }
            XCTAssertGreaterThan(text.utf8.count, SearchScan.sniffSize)
            bytes += fixture.write("d\(file % 4)/f\(file).txt", text)
        }
        let summary: JSONObject = [
            "matches": .int(Int64(expected.count)), "files": .int(Int64(files)), "bytes": .int(Int64(bytes)), "capped": false,
        ]

        for round in 0..<8 {
            let jobs = try (0..<searchesAtOnce).map { _ in try fixture.start(.search, ["query": "needle"]).get() }
            for job in jobs {
                let end = try XCTUnwrap(fixture.recorder.waitForTerminal(job.id, timeout: 60), "round \(round): \(job.id) did not end")
                XCTAssertEqual(end.state, .succeeded, "round \(round): \(end.error ?? "")")
                XCTAssertEqual(end.summary, summary, "round \(round)")
                let found = fixture.recorder.results(of: job.id).map { "\($0["file"]?.stringValue ?? "?"):\($0["line"]?.intValue ?? -1)" }
                XCTAssertEqual(found.count, expected.count, "round \(round): every match streamed exactly once")
                XCTAssertEqual(Set(found), expected, "round \(round)")
            }
        }
    }

    /// One scan with two stripes over files where every line matches (a batch is taken every 64
    /// lines), and two more threads calling `flushIfDue` all the while, as any thread may.
    func testFlushIfDueFromOtherThreadsWhileStripesFillAndTakeTheBatch() throws {
        let directory = makeTemporaryDirectory()
        var files: [SearchFile] = []
        var expected = 0
        for file in 0..<64 {
            var text = ""
            while text.utf8.count <= SearchScan.sniffSize + 200 {
                expected += 1
                text += "f\(file) needle \(expected) xxxxxxxxxxxxxxxxxxxx\n"
            }
            let url = directory.url.appendingPathComponent("f\(file).txt")
            try Data(text.utf8).write(to: url)
            files.append(SearchFile(path: url.path, relative: "f\(file).txt", size: Int64(text.utf8.count)))
        }
        let stripes = 2
        let flushers = 2

        for round in 0..<3 {
            let sink = CollectingSink()
            let context = makeStandaloneContext(.search, searchRoot: directory.url, maxSearchResults: .max, sink: sink)
            let scan = SearchScan(context: context, matcher: LineMatcher(query: "needle", caseSensitive: false), files: files)
            let scanning = Locked(stripes)
            let finished = DispatchGroup()
            // Threads of their own, not concurrentPerform: the flushers spin until the stripes end,
            // so they must not wait for a pool thread the stripes need.
            for index in 0..<(stripes + flushers) {
                finished.enter()
                Thread.detachNewThread {
                    if index < stripes {
                        scan.scanStripe()
                        scanning.withLock { $0 -= 1 }
                    } else {
                        while scanning.value > 0 { scan.flushIfDue() }
                    }
                    finished.leave()
                }
            }
            XCTAssertEqual(finished.wait(timeout: .now() + 30), .success, "round \(round): the scan did not end")
            scan.flush()
            let lines = sink.all.compactMap { $0["text"]?.stringValue }
            XCTAssertEqual(lines.count, expected, "round \(round): every match streamed exactly once")
            XCTAssertEqual(Set(lines).count, expected, "round \(round)")
            XCTAssertEqual(scan.summary["matches"], .int(Int64(expected)), "round \(round)")
        }
    }
}
