import Foundation

/// Finds the lines of a byte buffer that contain the query, without making a String per line.
///
/// Case-insensitive matching folds ASCII letters only (A–Z to a–z): other letters, "É" or "ß",
/// match only exactly. That keeps the search a byte comparison with no Unicode tables, which is
/// what makes it fast, and it is the behaviour of `grep -i` in the C locale.
///
/// Thread: any; a constant value.
struct LineMatcher: Sendable {
    /// The query bytes, ASCII-lowercased when matching ignores case.
    private let needle: [UInt8]
    private let caseSensitive: Bool
    /// The first byte in both cases (equal when it has no other case), for memchr.
    private let firstLower: UInt8
    private let firstUpper: UInt8

    init(query: String, caseSensitive: Bool) {
        let bytes = Array(query.utf8)
        needle = caseSensitive ? bytes : bytes.map(Self.fold)
        self.caseSensitive = caseSensitive
        firstLower = needle[0]
        firstUpper = !caseSensitive && firstLower >= 0x61 && firstLower <= 0x7A ? firstLower - 0x20 : firstLower
    }

    @inline(__always)
    static func fold(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    /// Calls `onMatch(line, number)` once per line of `text` that contains the query; the line has no
    /// newline, numbers count from `firstLine`. `text` must end at a line end or the file's end.
    /// Returns the number of newlines in `text`, so the caller can number the next buffer.
    func scan(_ text: UnsafeRawBufferPointer, firstLine: Int, onMatch: (UnsafeRawBufferPointer, Int) -> Void) -> Int {
        guard let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self), text.count > 0 else { return 0 }
        let count = text.count
        let lastStart = count - needle.count  // The last offset where the query still fits.
        var line = firstLine  // The number of the line that starts at `lineStart`.
        var lineStart = 0
        var from = 0
        // Where the next candidate of each case starts, found by memchr and kept until passed: asking
        // again for a case that does not occur would rescan the rest of the buffer at every candidate.
        var nextLower = -1
        var nextUpper = -1
        needle.withUnsafeBufferPointer { pattern in
            while from <= lastStart {
                if nextLower < from { nextLower = Self.find(firstLower, base, from, lastStart) }
                var candidate = nextLower
                if firstUpper != firstLower {
                    if nextUpper < from { nextUpper = Self.find(firstUpper, base, from, lastStart) }
                    candidate = min(candidate, nextUpper)
                }
                guard candidate <= lastStart else { break }
                guard matches(base + candidate, pattern) else {
                    from = candidate + 1
                    continue
                }
                line += Self.countNewlines(base + lineStart, candidate - lineStart)
                var start = candidate
                while start > lineStart, base[start - 1] != 0x0A { start -= 1 }
                let end =
                    memchr(base + candidate, 0x0A, count - candidate).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }
                    ?? count
                onMatch(UnsafeRawBufferPointer(start: base + start, count: end - start), line)
                // One report per line: go on after its end.
                line += end < count ? 1 : 0
                lineStart = min(count, end + 1)
                from = lineStart
            }
        }
        return line - firstLine + Self.countNewlines(base + lineStart, count - lineStart)
    }

    @inline(__always)
    private func matches(_ at: UnsafePointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        if caseSensitive { return memcmp(at, pattern.baseAddress!, pattern.count) == 0 }
        for index in 1..<max(1, pattern.count) where Self.fold(at[index]) != pattern[index] { return false }
        return true
    }

    /// The offset of `byte` in `base[from...last]`, or `last + 1` when it is not there.
    @inline(__always)
    private static func find(_ byte: UInt8, _ base: UnsafePointer<UInt8>, _ from: Int, _ last: Int) -> Int {
        guard from <= last, let hit = memchr(base + from, Int32(byte), last - from + 1) else { return last + 1 }
        return UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) - base
    }

    /// Counts "\n" eight bytes at a time: a byte of `v` is zero exactly when the high bit of the
    /// same byte of `~(((v & 0x7F…) + 0x7F…) | v | 0x7F…)` is set, with no carry between bytes.
    static func countNewlines(_ start: UnsafePointer<UInt8>, _ length: Int) -> Int {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let newlines: UInt64 = 0x0A0A_0A0A_0A0A_0A0A
        let raw = UnsafeRawPointer(start)
        var total = 0
        var offset = 0
        while offset + 8 <= length {
            let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ newlines
            total += (~(((word & low) &+ low) | word | low)).nonzeroBitCount
            offset += 8
        }
        while offset < length {
            if start[offset] == 0x0A { total += 1 }
            offset += 1
        }
        return total
    }
}
