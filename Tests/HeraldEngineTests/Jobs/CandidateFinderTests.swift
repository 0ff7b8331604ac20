import HeraldTestSupport
import XCTest

@testable import HeraldEngine

final class CandidateFinderTests: XCTestCase {
    /// Every position where the pair sits, in order, whichever way the finder goes: texts where the
    /// pair's bytes are rare (it stays with memchr), common from the start, or common only after a
    /// while (it moves on mid-buffer), in both cases of matching.
    func testFindsEveryPositionWhereThePairSitsAsItChangesStage() {
        var generator = SeededGenerator(seed: 11)
        func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
        var stagesSeen: Set<Int> = []
        for round in 0..<300 {
            let query = Array(["q-z", "-", "qq", "a-b-c", "x", "zebra-q", "Q-", "--q"][round % 8].utf8)
            let ignoringCase = round % 3 == 0
            let needle = ignoringCase ? query.map(LineMatcher.fold) : query
            let pair = RareBytePair(needle: needle, ignoringCase: ignoringCase)
            // Filler bytes, then a stretch where the query's bytes are common (or not), then filler.
            let length = [100, 3000, 12_000][below(3)]
            let common = below(3)  // 0: never, 1: from the start, 2: after the first half
            var text = [UInt8](repeating: 0x2E, count: length)
            for index in 0..<length where common == 1 || (common == 2 && index >= length / 2) {
                if below(4) == 0 { text[index] = query[below(query.count)] ^ (below(2) == 0 ? 0x20 : 0) }
            }
            for _ in 0..<below(6) {
                let at = below(max(1, length - query.count))
                text.replaceSubrange(at..<(at + query.count), with: query)
            }
            let last = text.count - needle.count
            let expected = text.withUnsafeBufferPointer { buffer in
                last < 0 ? [] : (0...last).filter { pair.sits(at: buffer.baseAddress! + $0) }
            }
            var found: [Int] = []
            var finder = CandidateFinder(pair: pair)
            text.withUnsafeBufferPointer { buffer in
                var from = 0
                while let candidate = finder.next(in: buffer.baseAddress!, from: from, last: last) {
                    found.append(candidate)
                    from = candidate + 1
                }
            }
            XCTAssertEqual(found, expected, "round \(round): \(String(decoding: query, as: UTF8.self)), common \(common)")
            stagesSeen.insert(finder.stage)
        }
        // Each way was taken by some buffer: memchr on the first byte, on the second, the wide compares.
        XCTAssertEqual(stagesSeen, [0, 1, 2])
    }

    /// memchr while the byte is rare, the pair's other byte once the first is common, the wide
    /// compares once both are; each time the candidates are still all found.
    func testStaysWithMemchrWhileTheByteIsRareAndMovesOnWhenItIsCommon() {
        let pair = RareBytePair(needle: Array("q-".utf8), ignoringCase: false)
        XCTAssertEqual([pair.byte1, pair.byte2], Array("q-".utf8), "the table ranks q rarer than -")
        let dots = [UInt8](repeating: 0x2E, count: 10_000)
        let cases: [(text: [UInt8], stage: Int)] = [
            (dots + Array("q-".utf8) + dots, 0),
            (Array(String(repeating: "q.", count: 5000).utf8) + Array("q-".utf8), 1),
            (Array(String(repeating: "q-.", count: 3000).utf8), 2),
        ]
        for (text, stage) in cases {
            var finder = CandidateFinder(pair: pair)
            var found: [Int] = []
            text.withUnsafeBufferPointer { buffer in
                var from = 0
                while let candidate = finder.next(in: buffer.baseAddress!, from: from, last: buffer.count - 2) {
                    found.append(candidate)
                    from = candidate + 1
                }
            }
            XCTAssertEqual(finder.stage, stage)
            XCTAssertEqual(found, (0..<(text.count - 1)).filter { text[$0] == 0x71 && text[$0 + 1] == 0x2D }, "stage \(stage)")
        }
    }
}
