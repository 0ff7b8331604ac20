import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// `SearchScan.excerpt` trims with its own loop instead of Foundation's `trimmingCharacters`; the
/// results must be the same, Unicode whitespace, combining marks and broken UTF-8 included.
final class SearchExcerptTests: XCTestCase {
    func testTrimmingAgreesWithFoundationOnRandomLines() {
        var generator = SeededGenerator(seed: 5)
        // ASCII and Unicode whitespace (NBSP, NEL, line and paragraph separators, ideographic space,
        // en quad), a zero-width space (not whitespace), combining marks, emoji, broken UTF-8.
        let pieces: [[UInt8]] =
            [
                " ", "\t", "\r", "\n", "\u{0B}", "\u{0C}", "\u{A0}", "\u{85}", "\u{2028}", "\u{2029}", "\u{3000}", "\u{2000}", "\u{200B}",
                "a", "Z", "é", "e\u{301}", "\u{301}", "👍🏽", "ß", "-",
            ]
            .map { Array($0.utf8) } + [[0xFF], [0xC3], [0xE2, 0x80]]
        for round in 0..<2000 {
            var line: [UInt8] = []
            let length = [0, 1, 2, 5, 20, 300][Int(generator.next() % 6)]
            for _ in 0..<length { line += pieces[Int(generator.next() % UInt64(pieces.count))] }
            let text = String(decoding: line, as: UTF8.self)
            XCTAssertEqual(SearchScan.trimmed(text), text.trimmingCharacters(in: .whitespacesAndNewlines), "round \(round): \(line)")
            // The whole excerpt, against the formula it had with Foundation's trimming.
            var start = 0
            while start < line.count, line[start] == 0x20 || (line[start] >= 0x09 && line[start] <= 0x0D) { start += 1 }
            let decoded = String(decoding: line[start..<min(line.count, start + 4096)], as: UTF8.self)
            let expected = String(decoded.trimmingCharacters(in: .whitespacesAndNewlines).prefix(240))
                .trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(line.withUnsafeBytes { SearchScan.excerpt($0) }, expected, "round \(round): \(line)")
        }
    }
}
