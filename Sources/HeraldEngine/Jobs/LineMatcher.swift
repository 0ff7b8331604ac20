import Foundation

/// Finds the lines of a byte buffer that contain the query, without making a String per line.
///
/// Case-insensitive matching folds ASCII letters only (A–Z to a–z): other letters, "É" or "ß",
/// match only exactly. That keeps the search a byte comparison with no Unicode tables, which is
/// what makes it fast, and it is the behaviour of `grep -i` in the C locale.
///
/// Candidates come from `CandidateFinder` (`memchr` on a rare byte of the query while it is rare in
/// the buffer, else wide compares of the query's two rarest bytes, `RareBytePair`), and lines
/// are counted lazily: a buffer's first line number is asked for only at its first match, then the
/// newlines before each match are counted, and the rest of the buffer only when it matched and the
/// file goes on. A buffer without a match costs no count at all, nor does a file without one.
/// Counting every newline and stopping at every first byte of the query were about 70 % of a
/// search's time on the benchmark corpus (docs/benchmarks.md).
///
/// Thread: any; a constant value.
struct LineMatcher: Sendable {
    /// The query bytes, ASCII-lowercased when matching ignores case.
    private let needle: [UInt8]
    private let caseSensitive: Bool
    private let pair: RareBytePair

    init(query: String, caseSensitive: Bool) {
        let bytes = Array(query.utf8)
        needle = caseSensitive ? bytes : bytes.map(Self.fold)
        self.caseSensitive = caseSensitive
        pair = RareBytePair(needle: needle, ignoringCase: !caseSensitive)
    }

    @inline(__always)
    static func fold(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    /// Calls `onMatch(line, number)` once per line of `text` that contains the query; the line has no
    /// newline. `text` must end at a line end or the file's end.
    ///
    /// `firstLine` is the number of the line `text` starts with. It is evaluated at the first match
    /// only, at most once, so a caller that skipped counting an earlier buffer of the file (it had no
    /// match) finds out only when a match needs it. Returns the number of the line the file's next
    /// buffer starts with, when counted: after a buffer that matched and is not the file's last
    /// (`lastOfFile`). Nil otherwise, and then the newlines after the last match go uncounted.
    func scan(
        _ text: UnsafeRawBufferPointer, firstLine: @autoclosure () -> Int, lastOfFile: Bool = false,
        onMatch: (UnsafeRawBufferPointer, Int) -> Void
    ) -> Int? {
        guard let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self), text.count > 0 else { return nil }
        let count = text.count
        let lastStart = count - needle.count  // The last offset where the query still fits.
        var line: Int?  // The number of the line that starts at `lineStart`, once a match needed it.
        var lineStart = 0
        var from = 0
        var finder = CandidateFinder(pair: pair)
        needle.withUnsafeBufferPointer { pattern in
            while let candidate = finder.next(in: base, from: from, last: lastStart) {
                guard matches(base + candidate, pattern) else {
                    from = candidate + 1
                    continue
                }
                let number = (line ?? firstLine()) + Self.countNewlines(base + lineStart, candidate - lineStart)
                var start = candidate
                while start > lineStart, base[start - 1] != 0x0A { start -= 1 }
                let end =
                    memchr(base + candidate, 0x0A, count - candidate).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }
                    ?? count
                onMatch(UnsafeRawBufferPointer(start: base + start, count: end - start), number)
                // One report per line: go on after its end.
                line = number + (end < count ? 1 : 0)
                lineStart = min(count, end + 1)
                from = lineStart
            }
        }
        guard let line, !lastOfFile else { return nil }
        return line + Self.countNewlines(base + lineStart, count - lineStart)
    }

    /// Whether the whole query starts at `at`. Thread: any.
    @inline(__always)
    private func matches(_ at: UnsafePointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        if caseSensitive { return memcmp(at, pattern.baseAddress!, pattern.count) == 0 }
        for index in 0..<pattern.count where Self.fold(at[index]) != pattern[index] { return false }
        return true
    }

    /// Counts "\n" 16 bytes at a time: each compare gives 0xFF (-1) in a lane that holds a newline,
    /// subtracted into 16 byte-wide counters; those are summed before any of them can pass 255.
    static func countNewlines(_ start: UnsafePointer<UInt8>, _ length: Int) -> Int {
        let raw = UnsafeRawPointer(start)
        let newline = SIMD16<UInt8>(repeating: 0x0A)
        var total = 0
        var offset = 0
        while length &- offset >= 16 {
            var lanes = SIMD16<UInt8>()
            let blocks = min(255, (length &- offset) >> 4)
            for _ in 0..<blocks {
                let hits = raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self) .== newline
                lanes &-= unsafeBitCast(hits, to: SIMD16<UInt8>.self)
                offset &+= 16
            }
            total &+= sum(lanes)
        }
        while offset < length {
            if start[offset] == 0x0A { total &+= 1 }
            offset &+= 1
        }
        return total
    }

    /// The sum of 16 byte-wide counters: bytes added in pairs into 16-bit fields (each at most
    /// 510), then the four fields of each word summed by a multiply into the top field (at most 2,040).
    @inline(__always)
    private static func sum(_ lanes: SIMD16<UInt8>) -> Int {
        let words = unsafeBitCast(lanes, to: SIMD2<UInt64>.self)
        return sum(words[0]) &+ sum(words[1])
    }

    @inline(__always)
    private static func sum(_ word: UInt64) -> Int {
        let evenBytes: UInt64 = 0x00FF_00FF_00FF_00FF
        let pairs = (word & evenBytes) &+ ((word >> 8) & evenBytes)
        return Int((pairs &* 0x0001_0001_0001_0001) >> 48)
    }
}
