@testable import HeraldEngine
import XCTest

final class LineMatcherTests: XCTestCase {
    /// (line number, line text) for every match, and the newline count `scan` returned.
    private func scan(_ text: String, _ query: String, caseSensitive: Bool = false, firstLine: Int = 1) -> ([String], Int) {
        var found: [String] = []
        let bytes = Array(text.utf8)
        let newlines = bytes.withUnsafeBytes { raw in
            LineMatcher(query: query, caseSensitive: caseSensitive).scan(raw, firstLine: firstLine) { line, number in
                found.append("\(number):\(String(decoding: line, as: UTF8.self))")
            }
        }
        return (found, newlines)
    }

    func testOneReportPerLineWithItsNumber() {
        let (found, newlines) = scan("abab\n\nxx ab ab\nno\nab", "AB", firstLine: 10)
        XCTAssertEqual(found, ["10:abab", "12:xx ab ab", "14:ab"])
        XCTAssertEqual(newlines, 4)
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
        for length in [0, 1, 7, 8, 9, 63, 64, 65, 1000] {
            let bytes = (0..<length).map { _ in [0x0A, 0x0B, 0x09, 0x8A, 0x00, 0xFF, 0x61][Int(generator.next() % 7)] as UInt8 }
            let counted = bytes.withUnsafeBufferPointer {
                LineMatcher.countNewlines($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, length)
            }
            XCTAssertEqual(counted, bytes.filter { $0 == 0x0A }.count, "length \(length)")
        }
    }
}
