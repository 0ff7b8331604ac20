import Foundation
import HeraldEngine
import HeraldTestSupport
import XCTest

final class SearchRunnerTests: XCTestCase {
    private struct Match: Hashable, CustomStringConvertible {
        let file: String
        let line: Int64
        let text: String
        var description: String { "\(file):\(line): \(text)" }
    }

    /// root: a.txt and sub/b.md (text), bin.dat (a NUL), .hidden/h.txt, .dotfile, link.txt and
    /// linkdir (symlinks to `outside`). Every one of them contains "hello" in some case.
    /// Returns the fixture and the bytes of the two text files.
    private func makeTree(maxSearchResults: Int = 1000, dataInsideRoot: Bool = false) -> (DispatcherFixture, Int) {
        let fixture = makeFixture(runnerConfiguration(), maxSearchResults: maxSearchResults, dataInsideRoot: dataInsideRoot)
        var textBytes = fixture.write("a.txt", "first line\nsay HeLLo world\n\t  hello again  \r\nnothing\n")
        textBytes += fixture.write("sub/b.md", "x\ny\nhello from b")
        fixture.write("bin.dat", Data("hello\u{0}binary\nhello\n".utf8))
        fixture.write(".hidden/h.txt", "hello hidden\n")
        fixture.write(".dotfile", "hello dot\n")
        fixture.write("o.txt", "hello outside\n", in: fixture.outside)
        fixture.symlink("link.txt", to: fixture.outside.appendingPathComponent("o.txt"))
        fixture.symlink("linkdir", to: fixture.outside)
        return (fixture, textBytes)
    }

    private func matches(_ fixture: DispatcherFixture, _ job: JobRecord) -> [Match] {
        fixture.recorder.results(of: job.id).map { item in
            Match(file: item["file"]?.stringValue ?? "?", line: item["line"]?.intValue ?? -1, text: item["text"]?.stringValue ?? "?")
        }
    }

    func testCaseInsensitiveFindsEveryCaseWithLineNumbersAndRelativePaths() throws {
        let (fixture, textBytes) = makeTree()
        let job = try fixture.run(.search, ["query": "hello"])
        XCTAssertEqual(job.state, .succeeded, job.error ?? "")
        XCTAssertEqual(
            Set(matches(fixture, job)),
            [
                Match(file: "a.txt", line: 2, text: "say HeLLo world"),
                Match(file: "a.txt", line: 3, text: "hello again"),
                Match(file: "sub/b.md", line: 3, text: "hello from b"),
            ])
        XCTAssertEqual(job.summary, ["matches": 3, "files": 2, "bytes": .int(Int64(textBytes)), "capped": false])
    }

    func testCaseSensitiveMatchesOnlyTheExactBytes() throws {
        let (fixture, _) = makeTree()
        let lower = try fixture.run(.search, ["query": "hello", "caseSensitive": true])
        XCTAssertEqual(Set(matches(fixture, lower).map(\.description)), ["a.txt:3: hello again", "sub/b.md:3: hello from b"])
        let mixed = try fixture.run(.search, ["query": "HeLLo", "caseSensitive": true])
        XCTAssertEqual(matches(fixture, mixed).map(\.description), ["a.txt:2: say HeLLo world"])
    }

    func testNonASCIILettersMatchOnlyExactlyWhenIgnoringCase() throws {
        let fixture = makeFixture(runnerConfiguration())
        fixture.write("u.txt", "ÉCOLE\nécole\nEcole\n")
        let job = try fixture.run(.search, ["query": "école"])
        XCTAssertEqual(matches(fixture, job).map(\.description), ["u.txt:2: école"])
    }

    func testBinaryHiddenAndSymlinkedFilesAreNotRead() throws {
        let (fixture, _) = makeTree()
        let job = try fixture.run(.search, ["query": "hello"])
        let files = Set(matches(fixture, job).map(\.file))
        for skipped in ["bin.dat", ".hidden/h.txt", ".dotfile", "link.txt", "linkdir/o.txt"] {
            XCTAssertFalse(files.contains(skipped), skipped)
        }
        let outside = try fixture.run(.search, ["query": "outside"])
        XCTAssertEqual(outside.summary?["matches"], 0)
    }

    func testDataDirectoryInsideTheRootIsSkipped() throws {
        let fixture = makeFixture(runnerConfiguration(), dataInsideRoot: true)
        fixture.write("herald-data/jobs.jsonl", "needle in the history\n")
        fixture.write("notes.txt", "a needle\n")
        let job = try fixture.run(.search, ["query": "needle"])
        XCTAssertEqual(matches(fixture, job).map(\.description), ["notes.txt:1: a needle"])
        XCTAssertEqual(fixture.refusal(.search, ["query": "x", "path": "herald-data"])?.code, .badRequest)
    }

    func testPathLimitsTheSearchAndIsNormalised() throws {
        let (fixture, _) = makeTree()
        let job = try fixture.run(.search, ["query": "HELLO", "path": "./sub/../sub/"])
        XCTAssertEqual(job.params["path"], "sub")
        XCTAssertEqual(matches(fixture, job).map(\.description), ["sub/b.md:3: hello from b"])
    }

    func testPathOutsideTheRootIsRefused() {
        let (fixture, _) = makeTree()
        for path in ["../x", "..", "sub/../../outside", "/etc", "linkdir", "linkdir/", "nope", "a.txt"] {
            let error = fixture.refusal(.search, ["query": "hello", "path": .string(path)])
            XCTAssertEqual(error?.code, .badRequest, path)
            XCTAssertTrue(error?.message.hasPrefix("path: ") == true, "\(path): \(String(describing: error))")
        }
    }

    func testParamsAreValidatedAndDefaulted() throws {
        let fixture = makeFixture(runnerConfiguration())
        let refused: [(JSONObject, String)] = [
            ([:], "query"), (["query": ""], "query"), (["query": 42], "query"),
            (["query": .string(String(repeating: "é", count: 513))], "query"), (["query": "a\nb"], "query"),
            (["query": "a", "caseSensitive": "yes"], "caseSensitive"), (["query": "a", "path": 3], "path"),
            (["query": "a", "limit": 3], "limit"),
        ]
        for (params, field) in refused {
            let error = fixture.refusal(.search, params)
            XCTAssertEqual(error?.code, .badRequest, "\(params)")
            XCTAssertTrue(error?.message.hasPrefix("\(field): ") == true, "\(params): \(String(describing: error))")
        }
        let longest = String(repeating: "é", count: 512)
        let job = try fixture.run(.search, ["query": .string(longest)])
        XCTAssertEqual(job.params, ["query": .string(longest), "caseSensitive": false])
    }

    func testCapLimitsStreamedItemsButCountsEveryMatch() throws {
        let fixture = makeFixture(runnerConfiguration(), maxSearchResults: 5)
        for file in 0..<20 {
            fixture.write("f\(file).txt", (0..<10).map { "needle \($0)\n" }.joined())
        }
        let job = try fixture.run(.search, ["query": "needle"])
        XCTAssertEqual(fixture.recorder.results(of: job.id).count, 5)
        XCTAssertEqual(job.summary?["matches"], 200)
        XCTAssertEqual(job.summary?["capped"], true)
        XCTAssertEqual(try fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 100).get().total, 5)
    }

    func testProgressTotalIsTheBytesOfTheTextFiles() throws {
        let (fixture, textBytes) = makeTree()
        let job = try fixture.run(.search, ["query": "hello"])
        let progress = fixture.recorder.progress(of: job.id)
        XCTAssertEqual(progress.first?.message, "scanning")
        XCTAssertEqual(progress.last?.total, Int64(textBytes))
        XCTAssertEqual(progress.last?.completed, Int64(textBytes))
        XCTAssertEqual(job.progress.total, Int64(textBytes))
    }

    func testManyFilesOnSeveralThreadsAreAllFound() throws {
        let fixture = makeFixture(runnerConfiguration())
        var expected: Set<String> = []
        for file in 0..<200 {
            let line = file % 7 + 1
            fixture.write("d\(file % 5)/f\(file).txt", (1...8).map { $0 == line ? "the Needle \(file)\n" : "hay\n" }.joined())
            expected.insert("d\(file % 5)/f\(file).txt:\(line): the Needle \(file)")
        }
        let job = try fixture.run(.search, ["query": "needle"])
        XCTAssertEqual(Set(matches(fixture, job).map(\.description)), expected)
        XCTAssertEqual(job.summary?["files"], 200)
    }

    func testLinesAcrossChunkBoundariesAndOverlongLines() throws {
        let fixture = makeFixture(runnerConfiguration())
        // A match after sixteen 64 KiB chunks without one (not counted: its line number is found by
        // counting the file again), then one 3 MiB line ending in the query.
        let filler = String(repeating: "z", count: 99) + "\n"  // 100 bytes a line
        var text = String(repeating: filler, count: 10_485)  // 1_048_500 bytes, 10485 lines
        text += "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx needle across\n"  // line 10486
        text += String(repeating: "y", count: 3 << 20) + " needle at the end\n"  // line 10487
        text += "last needle"  // line 10488, no newline
        fixture.write("big.txt", text)
        let job = try fixture.run(.search, ["query": "NEEDLE"])
        let found = matches(fixture, job)
        XCTAssertEqual(found.map(\.line), [10486, 10487, 10488])
        XCTAssertEqual(found.first?.text.hasSuffix("needle across"), true)
        XCTAssertEqual(found[1].text, String(repeating: "y", count: 240))
        XCTAssertEqual(found.last?.text, "last needle")
        XCTAssertEqual(job.summary?["bytes"], .int(Int64(text.utf8.count)))
    }

    func testCancelStopsARunningSearchAndNothingFollowsTheEnd() throws {
        let fixture = makeFixture(runnerConfiguration())
        // Every 16th byte starts a candidate (the query's two rarest bytes, "q" and "z", in place)
        // that fails at the query's "e": the scan is slow on purpose, yet a chunk takes well under
        // a second even in a debug build, so the cancel (checked between chunks) lands quickly.
        let line = String(String(repeating: "qzaaaaaaaaaaaaaa", count: 8).dropLast()) + "\n"
        let chunk = Data(String(repeating: line, count: 8192).utf8)  // 1 MiB
        for file in 0..<48 { fixture.write("big/f\(file).txt", chunk) }
        let job = try fixture.start(.search, ["query": "qze"]).get()
        let reported = fixture.recorder.waitFor("the search reports its total", timeout: 20) { _ in
            fixture.recorder.progress(of: job.id).contains { $0.total > 0 }
        }
        XCTAssertTrue(reported, "no progress")
        let asked = Date()
        _ = try fixture.dispatcher.cancel(job.id.rawValue).get()
        let end = try XCTUnwrap(fixture.recorder.waitForTerminal(job.id))
        XCTAssertEqual(end.state, .cancelled)
        XCTAssertLessThan(Date().timeIntervalSince(asked), 2, "the cancel took too long")
        _ = fixture.dispatcher.snapshot()  // A round trip on the dispatcher queue: anything queued has run.
        XCTAssertEqual(fixture.recorder.eventsAfterEnd(of: job.id).count, 0)
        XCTAssertLessThan(fixture.recorder.progress(of: job.id).last?.completed ?? .max, 48 << 20)
    }
}
