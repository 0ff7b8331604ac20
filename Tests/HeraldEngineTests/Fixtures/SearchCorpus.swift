import Foundation

@testable import HeraldEngine

/// A generated corpus for the search's parallel and oracle tests: text files whose lines hold the
/// query around the points where `SearchPart.plan` splits them into ranges (across a split point,
/// on the lines either side, on a line that starts exactly at one), a line longer than a whole
/// part, CRLF lines, a last line without a newline, an empty file. ASCII text (the oracle, ripgrep,
/// folds case the Unicode way; Herald folds ASCII letters only, so they agree on ASCII alone).
struct SearchCorpus {
    static let query = "qz-Needle"

    /// Relative paths, in the order the search lists them (one folder, names sorted by bytes).
    let names: [String]
    let contents: [[UInt8]]
    /// "file:line" of each line planted across a split point, in the query's exact case: both
    /// searches must find them.
    let straddling: [String]

    /// `partBytes`: where the files will be split, so that the query can be planted there.
    init(seed: UInt64, partBytes: Int64) {
        var generator = SeededGenerator(seed: seed)
        func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
        // Bytes that share the query's letters, so its rare pair often sits where the query does not.
        let alphabet = Array("qzQZ-needlNEEDLE abcxyz".utf8)
        let query = Array(Self.query.utf8)
        var names: [String] = []
        var contents: [[UInt8]] = []
        var straddling: [String] = []
        let part = Int(partBytes)
        // Sizes in parts; 0 and 10 bytes for files that are never split.
        let sizes = [0, 10, part - 1, 2 * part, 3 * part + 17, 5 * part + 3, 7 * part + 501, 4 * part]
        for (index, size) in sizes.enumerated() {
            let name = String(format: "f%02d.txt", index)
            var lines: [[UInt8]] = []
            var total = 0
            if index == sizes.count - 1 {
                // Lines of 100 bytes in 4 parts: with a part of a multiple of 100 bytes, every split
                // point is a line start.
                while total < size {
                    lines.append((0..<99).map { _ in alphabet[below(alphabet.count)] })
                    total += 100
                }
            } else {
                while total < size {
                    // Mostly short lines; now and then one longer than a part (up to 2,000 bytes) or none.
                    let length = below(40) == 0 ? min(2000, part + below(part)) : 12 + below(150)
                    var line = (0..<length).map { _ in alphabet[below(alphabet.count)] }
                    if below(5) == 0 { line.append(0x0D) }
                    lines.append(line)
                    total += line.count + 1
                }
            }
            // Random planting, in random case, on about one line in eight.
            for number in lines.indices where below(8) == 0 && lines[number].count > query.count + 1 {
                let at = 1 + below(lines[number].count - query.count - 1)
                let planted = query.map { byte in below(2) == 0 && byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte }
                lines[number].replaceSubrange(at..<(at + query.count), with: planted)
            }
            // Around each split point of the file's plan: exact case, across the point where the
            // line is long enough, and on the lines before and after.
            var bytes = Array(lines.joined(separator: [0x0A]))
            if index == sizes.count - 1 { bytes.append(0x0A) }  // 4 parts of exactly 10 lines.
            let file = SearchFile(path: "/", relative: name, size: Int64(bytes.count))
            let points = SearchPart.plan([file], threads: 2, partBytes: partBytes).dropFirst().map { Int($0.start) }
            var starts: [Int] = []
            var offset = 0
            for line in lines {
                starts.append(offset)
                offset += line.count + 1
            }
            for point in points {
                guard let number = starts.lastIndex(where: { $0 <= point }) else { continue }
                for (neighbour, across) in [(number - 1, false), (number, true), (number + 1, false)] {
                    guard neighbour >= 0, neighbour < lines.count else { continue }
                    let length = lines[neighbour].count - (lines[neighbour].last == 0x0D ? 1 : 0)
                    guard length > query.count + 1 else { continue }
                    let wanted = across ? point - starts[neighbour] - query.count / 2 : 1 + below(length - query.count - 1)
                    let at = max(1, min(length - query.count - 1, wanted))
                    bytes.replaceSubrange((starts[neighbour] + at)..<(starts[neighbour] + at + query.count), with: query)
                    if across, starts[neighbour] + at < point, point < starts[neighbour] + at + query.count {
                        straddling.append("\(name):\(neighbour + 1)")
                    }
                }
            }
            names.append(name)
            contents.append(bytes)
        }
        self.names = names
        self.contents = contents
        self.straddling = straddling
    }

    /// Writes the files into `folder`; returns them as the search lists them.
    func write(to folder: URL) throws -> [SearchFile] {
        try names.indices.map { index in
            let url = folder.appendingPathComponent(names[index])
            try Data(contents[index]).write(to: url)
            return SearchFile(path: url.path, relative: names[index], size: Int64(contents[index].count))
        }
    }
}
