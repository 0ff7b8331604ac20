import Foundation
import HeraldRedis
import HeraldTestSupport
import XCTest

/// The cluster's Lua scripts against what the Swift side sends them (`ClusterScriptSample`), and
/// under `luacheck`. Redis
/// gives a script `nil` for a `KEYS[n]` or `ARGV[n]` past what was sent, and Lua carries on with it:
/// a script and its Swift type that drift apart fail only at run time, on the path that reads the
/// missing index.
final class ClusterScriptTests: XCTestCase {
    /// Every script defined under Sources/HeraldCluster has a sample, so the checks below see it.
    func testEveryScriptHasASample() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/HeraldCluster")
        let files = try XCTUnwrap(FileManager.default.enumerator(at: folder.standardized, includingPropertiesForKeys: nil))
        var defined: Set<String> = []
        let pattern = try NSRegularExpression(pattern: #"RedisScript\(\s*name: "(\w+)""#)
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                defined.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        XCTAssertFalse(defined.isEmpty, "no script found under \(folder.standardized.path)")
        XCTAssertEqual(
            ClusterScriptSample.all.map(\.script.name).sorted(), defined.sorted(), "sampled (left), defined under \(folder.path) (right)")
    }

    /// Each `KEYS[n]` and `ARGV[n]` a script reads is one its Swift type sends, and each one sent is
    /// read; a script that reads a variadic tail (`#ARGV`, `unpack(ARGV, n)`) starts it right after
    /// the named ARGV, and only such a script is sent one.
    func testEveryIndexAScriptReadsIsSentAndEveryOneSentIsRead() {
        for sample in ClusterScriptSample.all {
            let name = sample.script.name
            let reads = LuaReads(source: sample.script.source)
            XCTAssertEqual(reads.unplaced, [], "\(name) reads KEYS by a computed index")
            XCTAssertEqual(reads.keys.sorted(), Array(1..<sample.keys + 1), "\(name): KEYS read (left) and sent (right)")
            XCTAssertEqual(reads.args.sorted(), Array(1..<sample.args + 1), "\(name): ARGV read by number (left) and sent by name (right)")
            XCTAssertEqual(reads.readsTail, sample.tail, "\(name): reads ARGV past the named ones (left), is sent a tail (right)")
            if sample.tail {
                XCTAssertEqual(reads.tailStarts.sorted(), [sample.args + 1], "\(name): where the Lua starts the tail")
            }
        }
    }

    /// `luacheck` (Debian's lua-check, which `make test` installs) finds nothing in any script, read
    /// as Redis runs it: Lua 5.1, with `redis`, `cjson`, `KEYS` and `ARGV` the only globals.
    func testLuacheckFindsNothing() throws {
        guard let luacheck = ["/usr/bin/luacheck", "/usr/local/bin/luacheck"].first(where: FileManager.default.isExecutableFile) else {
            throw XCTSkip("luacheck is not installed (Debian: apt-get install lua-check; `make deps-test` does)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-lua-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for sample in ClusterScriptSample.all {
            try Data(sample.script.source.utf8).write(to: folder.appendingPathComponent("\(sample.script.name).lua"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: luacheck)
        process.arguments =
            ["--std", "lua51", "--read-globals", "redis", "cjson", "KEYS", "ARGV", "--codes", "--no-color", "--quiet", "--"]
            + ClusterScriptSample.all.map { folder.appendingPathComponent("\($0.script.name).lua").path }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "luacheck:\n\(report)")
    }
}
