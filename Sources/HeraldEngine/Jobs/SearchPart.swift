/// One piece of a search's work: a whole file, or a byte range of a large one, so that a few large
/// files still spread over every search thread and the last piece left to scan is short.
///
/// A part owns the lines that start inside `start..<end`: it skips the line that began before
/// `start` (the part before owns it) and reads past `end` to finish its last line, so every line is
/// scanned by exactly one part, whole, wherever the split points fall. Line numbers are counted from
/// the part's first line; `SearchMerge` adds the lines of the file's earlier parts.
///
/// Thread: any; a constant value.
struct SearchPart: Sendable {
    /// Index into the search's files.
    let file: Int
    /// Where the part's range starts in the file: 0 for a file's first part.
    let start: Int64
    /// Where it ends; nil for a file's last part: to the end of the file, whatever its size now.
    let end: Int64?
    /// The bytes of the range by the listed size: the part's share of the progress total.
    let listedBytes: Int64

    /// Whether the part counts every newline it scans: a split file's parts but the last, whose
    /// counts give the next part's first line number. Other parts count only where a match asks.
    var countsEveryLine: Bool { end != nil }

    /// Split points are `partBytes` or more apart, so that a part costs far more than its open, its
    /// binary test and a skipped first line: about 0.5 ms of scanning on the benchmark machine.
    static let partBytes: Int64 = 2 << 20

    /// The parts for `files` in file order, ranges in byte order (the order matches are reported
    /// in). Files are split only when several threads will scan them, into parts of `partBytes` to
    /// twice that.
    static func plan(_ files: [SearchFile], threads: Int, partBytes: Int64 = SearchPart.partBytes) -> [SearchPart] {
        var parts: [SearchPart] = []
        parts.reserveCapacity(files.count)
        for (index, file) in files.enumerated() {
            let pieces = threads > 1 && partBytes > 0 ? max(1, file.size / partBytes) : 1
            guard pieces > 1 else {
                parts.append(SearchPart(file: index, start: 0, end: nil, listedBytes: file.size))
                continue
            }
            for piece in 0..<pieces {
                let start = file.size * piece / pieces
                let end = piece == pieces - 1 ? nil : file.size * (piece + 1) / pieces
                parts.append(SearchPart(file: index, start: start, end: end, listedBytes: (end ?? file.size) - start))
            }
        }
        return parts
    }
}
