@testable import HeraldEngine
import HeraldTestSupport
import XCTest

final class LineMatcherTests: XCTestCase {
    /// (line number, line text) for every match, and the next buffer's first line `scan` returned.
    private func scan(_ text: String, _ query: String, caseSensitive: Bool = false, firstLine: Int = 1) -> ([String], Int?) {
        var found: [String] = []
        let bytes = Array(text.utf8)
        let next = bytes.withUnsafeBytes { raw in
            LineMatcher(query: query, caseSensitive: caseSensitive).scan(raw, firstLine: firstLine) { line, number in
                found.append("\(number):\(String(decoding: line, as: UTF8.self))")
            }
        }
        return (found, next)
    }

    func testOneReportPerLineWithItsNumber() {
        let (found, next) = scan("abab\n\nxx ab ab\nno\nab", "AB", firstLine: 10)
        XCTAssertEqual(found, ["10:abab", "12:xx ab ab", "14:ab"])
        XCTAssertEqual(next, 14)
        // Ending at a line end, the next buffer starts a line further on.
        XCTAssertEqual(scan("x\nab\ny\n", "ab", firstLine: 3).1, 6)
    }

    /// The first line number is asked for at the first match only, once; a buffer without a match
    /// is not counted (nil), so the caller must find out later if a later buffer matches.
    func testTheFirstLineIsAskedForOnlyWhenAMatchNeedsIt() {
        let matcher = LineMatcher(query: "ab", caseSensitive: true)
        var asked = 0
        func first() -> Int {
            asked += 1
            return 7
        }
        let none = Array("x\ny\nz\n".utf8).withUnsafeBytes { raw in matcher.scan(raw, firstLine: first()) { _, _ in } }
        XCTAssertNil(none)
        XCTAssertEqual(asked, 0)
        var numbers: [Int] = []
        let next = Array("ab\nx\nab ab\n".utf8).withUnsafeBytes { raw in matcher.scan(raw, firstLine: first()) { numbers.append($1) } }
        XCTAssertEqual(numbers, [7, 9])
        XCTAssertEqual(next, 10)
        XCTAssertEqual(asked, 1)
    }

    func testQueryAtTheEdgesAndLongerThanTheText() {
        XCTAssertEqual(scan("needle", "needle").0, ["1:needle"])
        XCTAssertEqual(scan("needl", "needle").0, [])
        XCTAssertEqual(scan("x\nneedle\n", "NEEDLE", caseSensitive: true).0, [])
        XCTAssertEqual(scan("x\nnEeDlE\n", "needle").0, ["2:nEeDlE"])
        // Only the rare upper-case first letter occurs late: the lower-case candidates must not hide it.
        XCTAssertEqual(scan(String(repeating: "n", count: 1000) + "\nNEEDLE", "needle").0, ["2:NEEDLE"])
    }

    func testNewlineCountAgreesWithANaiveCount() {
        var generator = SeededGenerator(seed: 7)
        // Up to 70,000 bytes: each of the 16 counters sums 255 blocks at most before they are added up.
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4080, 4097, 70_000] {
            let bytes = (0..<length).map { _ in [0x0A, 0x0B, 0x09, 0x8A, 0x00, 0xFF, 0x61][Int(generator.next() % 7)] as UInt8 }
            let counted = bytes.withUnsafeBufferPointer {
                LineMatcher.countNewlines($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, length)
            }
            XCTAssertEqual(counted, bytes.filter { $0 == 0x0A }.count, "length \(length)")
        }
        let newlines = [UInt8](repeating: 0x0A, count: 70_001)
        XCTAssertEqual(newlines.withUnsafeBufferPointer { LineMatcher.countNewlines($0.baseAddress!, $0.count) }, 70_001)
    }

    /// The reference: split at "\n", fold ASCII letters of both sides when ignoring case, and look
    /// for the query in each line byte by byte. Returns (line number, line bytes) per matching line.
    private func naive(_ text: [UInt8], _ query: [UInt8], caseSensitive: Bool, firstLine: Int) -> [Found] {
        let fold: (UInt8) -> UInt8 = { caseSensitive || $0 < 0x41 || $0 > 0x5A ? $0 : $0 + 0x20 }
        let wanted = query.map(fold)
        var found: [Found] = []
        for (index, line) in text.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let folded = line.map(fold)
            guard folded.count >= wanted.count else { continue }
            if (0...(folded.count - wanted.count)).contains(where: { folded[$0..<($0 + wanted.count)].elementsEqual(wanted) }) {
                found.append(Found(line: firstLine + index, bytes: Array(line)))
            }
        }
        return found
    }

    private struct Found: Equatable, CustomStringConvertible {
        let line: Int
        let bytes: [UInt8]
        var description: String { "\(line):\(String(decoding: bytes, as: UTF8.self).debugDescription)" }
    }

    /// Random texts with the query planted at random places (the first and last byte, either side of
    /// 16- and 32-byte block edges, inside long lines, before "\r\n", at the end with no newline),
    /// in random cases, among bytes that share the query's letters: every match and line number,
    /// and the next buffer's first line (nil when nothing matched), agree with the reference.
    func testMatchesAgreeWithANaiveSearchOnRandomTexts() {
        var generator = SeededGenerator(seed: 2024)
        func pick<T>(_ items: [T]) -> T { items[Int(generator.next() % UInt64(items.count))] }
        // Query pieces: valid UTF-8 (a query is a String), letters in both cases, non-ASCII letters.
        let pieces = ["a", "b", "q", "z", "A", "Q", "Z", "-", " ", "0", "é", "É", "ß", "\t"].map { Array($0.utf8) }
        for round in 0..<400 {
            var query: [UInt8] = []
            let pieceCount = pick([1, 1, 2, 3, 5, 8, 17, 40])
            for _ in 0..<pieceCount { query += pick(pieces) }
            let caseSensitive = generator.next() % 2 == 0
            let firstLine = pick([1, 1, 10, 1000])
            // Text: the query's own bytes and pieces, newlines, CR, NUL and invalid UTF-8, so the rare
            // pair often sits at the right distance where the whole query does not.
            var text: [UInt8] = []
            let length = pick([0, 5, 31, 32, 33, 64, 300, 1000, 3000])
            let filler = pieces + [[0x0A], [0x0D, 0x0A], [0x0D], [0x00], [0xFF], [0x80], Array(query.prefix(query.count / 2 + 1))]
            while text.count < length { text += pick(filler) }
            if round % 7 == 0 { text += [UInt8](repeating: pick([0x61, 0x71]), count: 5000) }  // A very long line.
            for _ in 0..<pick([0, 1, 2, 5]) {
                let planted =
                    caseSensitive
                    ? query
                    : query.map { byte in
                        guard generator.next() % 2 == 0 else { return byte }
                        if byte >= 0x61 && byte <= 0x7A { return byte - 0x20 }
                        return byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                    }
                let edge = pick([0, text.count, text.count / 32 * 32, text.count / 16 * 16 + 1, text.count / 32 * 32 - 1])
                let at = max(0, min(text.count, generator.next() % 3 == 0 ? Int(generator.next() % UInt64(text.count + 1)) : edge))
                text.insert(contentsOf: planted + (generator.next() % 3 == 0 ? [0x0D, 0x0A] : []), at: at)
            }
            let matcher = LineMatcher(query: String(decoding: query, as: UTF8.self), caseSensitive: caseSensitive)
            var found: [Found] = []
            var atEnd: [Found] = []
            let next = text.withUnsafeBytes { raw in
                _ = matcher.scan(raw, firstLine: firstLine, lastOfFile: true) { atEnd.append(Found(line: $1, bytes: Array($0))) }
                return matcher.scan(raw, firstLine: firstLine) { found.append(Found(line: $1, bytes: Array($0))) }
            }
            let expected = naive(text, query, caseSensitive: caseSensitive, firstLine: firstLine)
            let context = "round \(round): query \(String(decoding: query, as: UTF8.self).debugDescription), caseSensitive \(caseSensitive)"
            XCTAssertEqual(found, expected, context)
            XCTAssertEqual(atEnd, expected, context)
            XCTAssertEqual(next, expected.isEmpty ? nil : firstLine + text.filter { $0 == 0x0A }.count, context)
        }
    }

    /// The pair is the query's rarest bytes: in "the zebra", "z" and "b" (not "e" or " "); ignoring
    /// case, a letter ranks as its commoner case.
    func testThePairIsTheQuerysRarestBytes() {
        let pair = RareBytePair(needle: Array("the zebra".utf8), ignoringCase: false)
        XCTAssertEqual([pair.byte1, pair.byte2], Array("zb".utf8))
        XCTAssertEqual([pair.offset1, pair.offset2], [4, 6])
        XCTAssertEqual([pair.other1, pair.other2], Array("zb".utf8))
        let folded = RareBytePair(needle: Array("q-".utf8), ignoringCase: true)
        XCTAssertEqual(Set([folded.other1, folded.other2]), Set(Array("Q-".utf8)))
        let single = RareBytePair(needle: [0x78], ignoringCase: true)
        XCTAssertEqual([single.offset1, single.offset2], [0, 0])
    }
}
