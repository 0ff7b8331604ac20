import HeraldEngine
@testable import HeraldServer
import HeraldTestSupport
import XCTest

/// Frames, URLs, the rate limit, the token check and the origin rule.
final class WireHelpersTests: XCTestCase {
    func testFrameHeadersForEachLengthClass() {
        XCTAssertEqual(Array(WebSocketFrame.text(Array("hi".utf8)).prefix(2)), [0x81, 2])
        let medium = WebSocketFrame.text(Array(repeating: 0x61, count: 300))
        XCTAssertEqual(Array(medium.prefix(4)), [0x81, 126, 0x01, 0x2C])
        XCTAssertEqual(medium.count, 304)
        let large = WebSocketFrame.text(Array(repeating: 0x61, count: 70_000))
        XCTAssertEqual(Array(large.prefix(10)), [0x81, 127, 0, 0, 0, 0, 0, 0x01, 0x11, 0x70])
        XCTAssertEqual(WebSocketFrame.payload(of: large).count, 70_000)
    }

    func testTokenBucketAllowsBurstThenRate() {
        var bucket = TokenBucket(rate: 2, burst: 3)
        XCTAssertEqual((0..<5).map { _ in bucket.take(now: 0) }, [true, true, true, false, false])
        XCTAssertTrue(bucket.take(now: 0.5), "one token back after half a second at 2/s")
        XCTAssertFalse(bucket.take(now: 0.5))
        XCTAssertEqual((0..<5).map { _ in bucket.take(now: 100) }.filter { $0 }.count, 3, "never more than the burst saved up")
    }

    func testOriginRule() {
        XCTAssertTrue(OriginPolicy.isAllowed(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080", allowList: []))
        XCTAssertTrue(OriginPolicy.isAllowed(origin: "https://Herald.example", host: "herald.example", allowList: []))
        XCTAssertFalse(OriginPolicy.isAllowed(origin: "http://evil.example", host: "127.0.0.1:8080", allowList: []))
        XCTAssertTrue(OriginPolicy.isAllowed(origin: "http://tool.example", host: "127.0.0.1:8080", allowList: ["http://tool.example"]))
        XCTAssertFalse(OriginPolicy.isAllowed(origin: "null", host: "127.0.0.1:8080", allowList: []))
    }

    func testStaticFilesRefuseEscapes() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("herald-static-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try "ok".write(to: root.appendingPathComponent("sub/a.js"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: "/etc")
        let files = StaticFiles(root: root)
        XCTAssertEqual(files.response(for: "/sub/a.js").status, 200)
        XCTAssertEqual(files.response(for: "/sub/a.js").contentType, "text/javascript; charset=utf-8")
        XCTAssertEqual(files.response(for: "/sub/../sub/a.js").status, 404, "`..` is refused, not resolved")
        XCTAssertEqual(files.response(for: "/link/passwd").status, 404, "a symlink out of the folder is not followed")
        XCTAssertEqual(files.response(for: "/sub").status, 404, "folders are not listed")
        XCTAssertEqual(StaticFiles(root: nil).response(for: "/").status, 404)
    }

    func testMetricsRenderAsPrometheusText() {
        var metrics = ServerMetrics()
        metrics.connectionsOpen = 2
        metrics.countCommand("start", outcome: "ok")
        var engine = EngineStatistics()
        engine.finished["search/succeeded"] = 1
        engine.durationBuckets[engine.durationBuckets.count - 1] = 1
        engine.durationCount = 1
        engine.sortCache = SortCacheFigures(bytes: 40072, files: 3, evictions: 5, limitBytes: 45000)
        let text = metrics.render(engine: engine, uptimeSeconds: 1)
        for sample in [
            "herald_sort_cache_bytes 40072", "herald_sort_cache_files 3", "herald_sort_cache_evictions_total 5",
            "herald_sort_cache_limit_bytes 45000",
        ] {
            XCTAssertTrue(text.contains("\n\(sample)\n"), sample)
        }
        XCTAssertTrue(text.contains("herald_connections_open 2\n"))
        XCTAssertTrue(text.contains("herald_commands_total{type=\"start\",outcome=\"ok\"} 1\n"))
        XCTAssertTrue(text.contains("herald_jobs_finished_total{kind=\"search\",state=\"succeeded\"} 1\n"))
        XCTAssertTrue(text.contains("herald_job_duration_seconds_bucket{le=\"+Inf\"} 1\n"))
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            XCTAssertEqual(line.split(separator: " ").count, 2, "sample lines are `name value`: \(line)")
        }
    }
}
