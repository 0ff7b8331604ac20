import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// The search against an independent oracle: ripgrep (Debian's `ripgrep`, which `make deps-test`
/// installs), `rg -F --line-number` (and `-i` when ignoring case), on a generated corpus with matches
/// across the points where files are split. Both must report the same lines (file, line number,
/// text), in the same order. rg's text is put through Herald's excerpt (trimmed, at most 240
/// characters), the one way the two differ by design.
///
/// The same files: rg skips hidden files and does not follow symlinks by default, as Herald; it is
/// told to ignore .gitignore files (`--no-ignore`), which Herald does not read; binary files here
/// start with a NUL, which both take as binary from the first byte on (rg stops at the first
/// buffer holding one, Herald at a NUL in the first 8 KiB). `--sort path` makes rg's order the
/// listing's for one folder of ASCII names. The corpus is ASCII: rg folds case the Unicode way,
/// Herald ASCII letters only.
final class SearchRipgrepOracleTests: XCTestCase {
    private func ripgrep() throws -> String {
        guard let path = ["/usr/bin/rg", "/usr/local/bin/rg"].first(where: FileManager.default.isExecutableFile) else {
            throw XCTSkip("ripgrep is not installed (Debian: apt-get install ripgrep; `make deps-test` does)")
        }
        return path
    }

    /// "file:line: excerpt" per line rg prints. The folder is named ("."): without a path, rg reads
    /// its standard input when that is not a terminal. Its "./" is dropped.
    private func oracle(_ rg: String, in folder: URL, caseSensitive: Bool) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: rg)
        process.currentDirectoryURL = folder
        process.arguments =
            ["--no-config", "-F", "--line-number", "--no-heading", "--with-filename", "--no-ignore", "--color", "never", "--sort", "path"]
            + (caseSensitive ? [] : ["-i"]) + ["--", SearchCorpus.query, "."]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let bytes = Array(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "rg found nothing or failed")
        return bytes.split(separator: 0x0A).map { line in
            let fields = line.split(separator: 0x3A, maxSplits: 2, omittingEmptySubsequences: false)
            let text = Array(fields.count > 2 ? fields[2] : []).withUnsafeBytes { SearchScan.excerpt($0) }
            let file = fields[0].starts(with: Array("./".utf8)) ? fields[0].dropFirst(2) : fields[0]
            return "\(String(decoding: file, as: UTF8.self)):\(String(decoding: fields[1], as: UTF8.self)): \(text)"
        }
    }

    private func lines(_ items: [JSONValue]) -> [String] {
        items.map { "\($0["file"]?.stringValue ?? "?"):\($0["line"]?.intValue ?? -1): \($0["text"]?.stringValue ?? "?")" }
    }

    /// The scan itself, files split in parts of 1,000 bytes, on 1 and 4 threads.
    func testSplitFilesOnSeveralThreadsMatchRipgrep() throws {
        let rg = try ripgrep()
        let directory = makeTemporaryDirectory()
        let files = try SearchCorpus(seed: 11, partBytes: 1000).write(to: directory.url)
        for caseSensitive in [true, false] {
            let expected = try oracle(rg, in: directory.url, caseSensitive: caseSensitive)
            XCTAssertGreaterThan(expected.count, 20)
            for threads in [1, 4] {
                let sink = CollectingSink()
                let context = makeStandaloneContext(.search, searchRoot: directory.url, maxSearchResults: .max, sink: sink)
                let scan = SearchScan(
                    context: context, matcher: LineMatcher(query: SearchCorpus.query, caseSensitive: caseSensitive), files: files,
                    threads: threads, bufferSize: 512, partBytes: 1000, bytesPerThread: 1)
                scan.scanAll()
                scan.flush()
                XCTAssertEqual(lines(sink.all), expected, "threads \(threads), caseSensitive \(caseSensitive)")
            }
        }
    }

    /// The whole job through the dispatcher (the listing, the runner), over a folder that also holds
    /// what both skip: a hidden file, a binary file, a symlink. The corpus is too small for the
    /// runner to split it or start threads (`SearchScan.bytesPerThread`); the test above does both.
    func testTheSearchJobMatchesRipgrep() throws {
        let rg = try ripgrep()
        let fixture = makeFixture(
            runnerConfiguration(), runners: [SearchRunner(threads: 4)], maxSearchResults: 100_000)
        let corpus = SearchCorpus(seed: 12, partBytes: 1000)
        _ = try corpus.write(to: fixture.root)
        fixture.write(".hidden.txt", "qz-Needle hidden\n")
        fixture.write("bin.dat", Data("\u{0}qz-Needle binary\n".utf8))
        fixture.write("o.txt", "qz-Needle outside\n", in: fixture.outside)
        fixture.symlink("link.txt", to: fixture.outside.appendingPathComponent("o.txt"))
        for caseSensitive in [true, false] {
            let expected = try oracle(rg, in: fixture.root, caseSensitive: caseSensitive)
            let job = try fixture.run(.search, ["query": .string(SearchCorpus.query), "caseSensitive": .bool(caseSensitive)])
            XCTAssertEqual(job.state, .succeeded, job.error ?? "")
            XCTAssertEqual(lines(fixture.recorder.results(of: job.id)), expected, "caseSensitive \(caseSensitive)")
            XCTAssertEqual(job.summary?["matches"], .int(Int64(expected.count)))
        }
    }
}
