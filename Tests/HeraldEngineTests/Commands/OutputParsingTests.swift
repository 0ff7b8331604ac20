import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// Lines out of a byte stream, and what each line means under the progress protocol.
final class OutputParsingTests: XCTestCase {
    private func lines(_ chunks: [String], maxBytes: Int = 4096) -> [String] {
        var splitter = OutputLines(maxBytes: maxBytes)
        var out: [String] = []
        for chunk in chunks {
            let bytes = Array(chunk.utf8)
            out += bytes.withUnsafeBytes { splitter.feed($0) }
        }
        if let last = splitter.finish() { out.append(last) }
        return out
    }

    func testLinesEndAtNewlineOrCarriageReturnAcrossChunks() {
        XCTAssertEqual(lines(["one\ntw", "o\r\nthree\r 10%\r 20%", "\nlast"]), ["one", "two", "three", " 10%", " 20%", "last"])
        XCTAssertEqual(lines(["a\rb\r\nc\n\rd\n\ne\r"]), ["a", "b", "c", "", "d", "", "e"], "every mix in one read")
    }

    func testLongLinesAreCutAndMarked() {
        XCTAssertEqual(lines([String(repeating: "a", count: 10) + "\nok\n"], maxBytes: 4), ["aaaa…", "ok"])
        // A cut never splits a UTF-8 character.
        XCTAssertEqual(lines(["aé\n"], maxBytes: 2), ["a…"])
    }

    func testInvalidUTF8IsReplaced() {
        var splitter = OutputLines()
        let bytes: [UInt8] = [0x61, 0xFF, 0x62, 0x0A]
        XCTAssertEqual(bytes.withUnsafeBytes { splitter.feed($0) }, ["a\u{FFFD}b"])
    }

    func testProtocolLines() {
        XCTAssertEqual(ProgressLine.parse(#"{"progress": 0.42, "message": "copying"}"#), .fraction(0.42, message: "copying"))
        XCTAssertEqual(ProgressLine.parse(#"{"progress": 7}"#), .fraction(1, message: nil), "clamped to 0…1")
        XCTAssertEqual(ProgressLine.parse(#"{"completed": 420, "total": 1000}"#), .counts(completed: 420, total: 1000, message: nil))
        XCTAssertEqual(ProgressLine.parse(#"{"result": {"files": 3}}"#), .result(["files": 3]))
        XCTAssertEqual(ProgressLine.parse(#"{"items": [{"a": 1}]}"#), .items([["a": 1]]))
        XCTAssertEqual(ProgressLine.parse(#"{"level": "info"}"#), .log(percent: nil), "other JSON is a log line")
        XCTAssertEqual(ProgressLine.parse(" \t{\"progress\": 0.5}"), .fraction(0.5, message: nil), "indented")
        XCTAssertEqual(ProgressLine.parse("x {\"progress\": 0.5}"), .log(percent: nil), "only a line that is an object")
        XCTAssertEqual(ProgressLine.parse(#"{"progress": 0.5}"#, protocolAllowed: false), .log(percent: nil))
    }

    func testPercentagesOnLogLines() {
        XCTAssertEqual(ProgressLine.parse(" 45%|████▌     | 45/100 [00:01<00:01, 45.0it/s]"), .log(percent: 0.45))
        XCTAssertEqual(ProgressLine.parse("      1,234,567  45%   10.00MB/s    0:00:01"), .log(percent: 0.45))
        XCTAssertEqual(ProgressLine.parse("done 99.5% of it, 12% left"), .log(percent: 0.995), "the first percentage")
        XCTAssertEqual(ProgressLine.parse("100%"), .log(percent: 1))
        XCTAssertEqual(ProgressLine.parse("load 250% and 5%"), .log(percent: 0.05), "over 100 is not a fraction")
        XCTAssertEqual(ProgressLine.parse("no number %"), .log(percent: nil))
    }
}
