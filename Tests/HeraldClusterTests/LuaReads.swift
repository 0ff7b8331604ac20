import Foundation
import HeraldTestSupport

/// Which KEYS and ARGV a Lua script reads, from its source: `KEYS[n]` and `ARGV[n]` with a literal
/// `n`, and ARGV past the named ones (`#ARGV`, `ARGV[i]`, `unpack(ARGV, …)`) with where that tail
/// begins: the literal of `unpack(ARGV, n`, of a loop `for i = n, …` whose body reads `ARGV[i]`
/// or `unpack(ARGV, i`, and of a cursor `local i = n` that the lines after it read ARGV at
/// (`ARGV[i + 1]`, `unpack(ARGV, i`). Loop bodies are found by indentation (the scripts' house style: two spaces,
/// `end` under `for`). A read this cannot place (`KEYS` by a computed index) is in `unplaced`.
struct LuaReads {
    private(set) var keys: Set<Int> = []
    private(set) var args: Set<Int> = []
    /// Whether the script reads ARGV past a fixed index.
    private(set) var readsTail = false
    /// The first index of the tail, as each read of it says.
    private(set) var tailStarts: Set<Int> = []
    private(set) var unplaced: [String] = []

    init(source: String) {
        keys = Set(Self.matches(#"KEYS\[(\d+)\]"#, in: source).compactMap { Int($0[1]) })
        args = Set(Self.matches(#"ARGV\[(\d+)\]"#, in: source).compactMap { Int($0[1]) })
        unplaced = Self.matches(#"KEYS\[[^\]0-9][^\]]*\]|#KEYS|unpack\(KEYS"#, in: source).map { $0[0] }
        readsTail = !Self.matches(#"ARGV\[[^\]0-9][^\]]*\]|#ARGV|unpack\(ARGV"#, in: source).isEmpty
        tailStarts = Set(Self.matches(#"unpack\(ARGV, (\d+)"#, in: source).compactMap { Int($0[1]) })
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, line) in lines.enumerated() {
            if let cursor = Self.matches(#"^\s*local (\w+) = (\d+)$"#, in: line).first, let start = Int(cursor[2]) {
                let after = lines[(index + 1)...].joined(separator: "\n")
                if after.contains("ARGV[\(cursor[1])") || after.contains("unpack(ARGV, \(cursor[1])") { tailStarts.insert(start) }
            }
            guard let loop = Self.matches(#"^(\s*)for (\w+) = (\d+),"#, in: line).first, let start = Int(loop[3]) else { continue }
            let (indent, name) = (loop[1], loop[2])
            var body = line
            if !line.hasSuffix(" end") {
                let rest = lines[(index + 1)...]
                let close = rest.firstIndex { $0 == indent + "end" } ?? lines.endIndex
                body = rest[..<close].joined(separator: "\n")
            }
            if body.contains("ARGV[\(name)]") || body.contains("unpack(ARGV, \(name)") { tailStarts.insert(start) }
        }
    }

    /// Every match of `pattern` in `text`: the whole match, then each group.
    private static func matches(_ pattern: String, in text: String) -> [[String]] {
        let regex = try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        let whole = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: whole).map { match in
            (0..<match.numberOfRanges).map { Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? "" }
        }
    }
}
