import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// The scan as a whole (sniff, chunks cut at line ends, carried partial lines, a buffer that grows
/// for a long line, lines counted only when needed) against a reference that reads each file whole.
/// Buffers of 64 bytes to 4 KiB put hundreds of chunk edges in files of a few KiB, where the real
/// 64 KiB would need far larger files per edge (SearchRunnerTests covers that size once).
final class SearchChunkEdgeTests: XCTestCase {
    private let query = "qz-Needle"

    /// The reference: split each file at "\n", fold ASCII letters when ignoring case, and look for
    /// the query in each line byte by byte. "file:line: excerpt" per matching line.
    private func naive(_ bytes: [UInt8], file: String, caseSensitive: Bool) -> [String] {
        let fold: (UInt8) -> UInt8 = { caseSensitive || $0 < 0x41 || $0 > 0x5A ? $0 : $0 + 0x20 }
        let wanted = Array(query.utf8).map(fold)
        var found: [String] = []
        for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let folded = line.map(fold)
            guard folded.count >= wanted.count,
                (0...(folded.count - wanted.count)).contains(where: { folded[$0..<($0 + wanted.count)].elementsEqual(wanted) })
            else { continue }
            found.append("\(file):\(index + 1): \(Array(line).withUnsafeBytes { SearchScan.excerpt($0) })")
        }
        return found
    }

    /// Random files of lines (LF or CRLF, some of 3,000 bytes, the last without a newline) with the
    /// query planted in random case across each chunk edge and at the ends; one stripe, so every
    /// file's matches come in order.
    func testRandomFilesAgreeWithAReferenceAcrossChunkEdges() throws {
        var generator = SeededGenerator(seed: 99)
        func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
        let directory = makeTemporaryDirectory()
        // Bytes that share the query's letters, so its rare pair often sits where the query does not.
        let alphabet = Array("qzQZ-needlNEEDLE  \t\u{0D}abc".utf8) + [0xC3, 0xA9]
        for bufferSize in [64, 1000, 4096] {
            var files: [SearchFile] = []
            var contents: [[UInt8]] = []
            for index in 0..<6 {
                var bytes: [UInt8] = []
                let size = [0, 10, bufferSize - 1, bufferSize, 5 * bufferSize + 3, 12_000][index]
                while bytes.count < size {
                    let length = below(25) == 0 ? 3000 : below(90)
                    for _ in 0..<length { bytes.append(alphabet[below(alphabet.count)]) }
                    bytes += below(3) == 0 ? [0x0D, 0x0A] : [0x0A]
                }
                bytes.removeLast(bytes.count - size)
                // Across each multiple of the buffer size (where a chunk may end), and at both ends.
                let spots = stride(from: 0, through: size, by: bufferSize).map { $0 } + [size]
                for spot in spots {
                    // Half of them as they are, half with letters in random case.
                    let exact = below(2) == 0
                    let planted = Array(query.utf8).map { byte in
                        exact || below(2) == 0 || byte < 0x61 || byte > 0x7A ? byte : byte - 0x20
                    }
                    guard bytes.count >= planted.count else { continue }
                    let at = max(0, min(bytes.count - planted.count, spot - below(planted.count + 1)))
                    bytes.replaceSubrange(at..<(at + planted.count), with: planted)
                }
                let url = directory.url.appendingPathComponent("f\(index).txt")
                try Data(bytes).write(to: url)
                files.append(SearchFile(path: url.path, relative: "f\(index).txt", size: Int64(bytes.count)))
                contents.append(bytes)
            }
            for caseSensitive in [true, false] {
                let expected = files.indices.flatMap { naive(contents[$0], file: files[$0].relative, caseSensitive: caseSensitive) }
                let sink = CollectingSink()
                let context = makeStandaloneContext(.search, searchRoot: directory.url, maxSearchResults: .max, sink: sink)
                let matcher = LineMatcher(query: query, caseSensitive: caseSensitive)
                let scan = SearchScan(context: context, matcher: matcher, files: files, bufferSize: bufferSize)
                scan.scanStripe()
                scan.flush()
                let found = sink.all.map { item in
                    "\(item["file"]?.stringValue ?? "?"):\(item["line"]?.intValue ?? -1): \(item["text"]?.stringValue ?? "?")"
                }
                let label = "buffer \(bufferSize), caseSensitive \(caseSensitive)"
                XCTAssertEqual(found, expected, label)
                XCTAssertGreaterThan(expected.count, caseSensitive ? 5 : 10, label)
                XCTAssertEqual(scan.summary["bytes"], .int(Int64(contents.reduce(0) { $0 + $1.count })), label)
            }
        }
    }

    /// Matches few and far between: most chunks hold none and are not counted, so the line number of
    /// a later match is found by counting the file again up to its chunk. Files of 40 KiB of short
    /// lines with 0 to 3 matches each, at random places (the first and last line among them).
    func testSparseMatchesAfterUncountedChunksHaveTheirLineNumbers() throws {
        var generator = SeededGenerator(seed: 5)
        func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
        let directory = makeTemporaryDirectory()
        for bufferSize in [64, 1000, 4096] {
            var files: [SearchFile] = []
            var contents: [[UInt8]] = []
            for index in 0..<8 {
                var lines: [[UInt8]] = []
                var size = 0
                while size < 40_000 {
                    lines.append((0..<below(70)).map { _ in Array("abcdeq z-".utf8)[below(9)] })
                    size += lines[lines.count - 1].count + 1
                }
                let spots = [0, lines.count - 1, below(lines.count), below(lines.count)].prefix(index % 4)
                for spot in spots { lines[spot] += Array(query.utf8) }
                let bytes = Array(lines.joined(separator: [0x0A]))
                let url = directory.url.appendingPathComponent("s\(index).txt")
                try Data(bytes).write(to: url)
                files.append(SearchFile(path: url.path, relative: "s\(index).txt", size: Int64(bytes.count)))
                contents.append(bytes)
            }
            let expected = files.indices.flatMap { naive(contents[$0], file: files[$0].relative, caseSensitive: true) }
            let sink = CollectingSink()
            let context = makeStandaloneContext(.search, searchRoot: directory.url, maxSearchResults: .max, sink: sink)
            let scan = SearchScan(
                context: context, matcher: LineMatcher(query: query, caseSensitive: true), files: files, bufferSize: bufferSize)
            scan.scanStripe()
            scan.flush()
            let found = sink.all.map { item in
                "\(item["file"]?.stringValue ?? "?"):\(item["line"]?.intValue ?? -1): \(item["text"]?.stringValue ?? "?")"
            }
            XCTAssertEqual(found, expected, "buffer \(bufferSize)")
            // A match past line 500 (about 17 KB in): chunks without a match came before it.
            XCTAssertTrue(expected.contains { Int($0.split(separator: ":")[1])! > 500 }, "buffer \(bufferSize)")
            XCTAssertGreaterThan(expected.count, 8, "buffer \(bufferSize)")
        }
    }
}
