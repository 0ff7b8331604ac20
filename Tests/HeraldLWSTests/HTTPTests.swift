import Glibc
import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// Plain HTTP on the WebSocket port: dashboard files, REST, health and metrics.
final class HTTPTests: XCTestCase {
    private func serverWithFiles() throws -> LiveServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-public-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "<!doctype html><title>t</title>".write(to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "body{}".write(to: folder.appendingPathComponent("app.css"), atomically: true, encoding: .utf8)
        try "secret".write(to: folder.appendingPathComponent(".hidden"), atomically: true, encoding: .utf8)
        return try LiveServer(runners: [GateRunner(steps: 2, free: true)]) { $0.publicDirectory = folder }
    }

    func testStaticFilesWithTypesAndPolicy() throws {
        let server = try serverWithFiles()
        defer { server.stop() }
        let index = try RawSocket.http(port: server.port, path: "/")
        XCTAssertEqual(index.status, 200)
        XCTAssertTrue(index.body.contains("<title>t</title>"))
        XCTAssertTrue(index.headers.lowercased().contains("content-type: text/html"))
        XCTAssertTrue(index.headers.lowercased().contains("content-security-policy: default-src 'self'"))
        let css = try RawSocket.http(port: server.port, path: "/app.css")
        XCTAssertTrue(css.headers.lowercased().contains("content-type: text/css"))
        for path in ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/.hidden", "/nope.js", "/..%2fetc%2fpasswd"] {
            let refused = try RawSocket.http(port: server.port, path: path)
            XCTAssertTrue([400, 403, 404].contains(refused.status), "\(path) gave \(refused.status)")
            XCTAssertFalse(refused.body.contains("root:"), path)
            XCTAssertFalse(refused.body.contains("secret"), path)
        }
    }

    func testRestStartsAndReadsJobs() throws {
        let server = try serverWithFiles()
        defer { server.stop() }
        let started = try RawSocket.http(
            port: server.port, method: "POST", path: "/api/jobs", body: #"{"kind":"search","params":{"query":"x"}}"#)
        XCTAssertEqual(started.status, 202, started.body)
        let job = try JSONParser.parse(started.body)
        let id = try XCTUnwrap(job["id"]?.stringValue)
        let deadline = Date(timeIntervalSinceNow: 10)
        var state = ""
        while Date() < deadline, state != "succeeded" {
            state = (try? JSONParser.parse(RawSocket.http(port: server.port, path: "/api/jobs/\(id)").body))?["state"]?.stringValue ?? ""
        }
        XCTAssertEqual(state, "succeeded")
        let results = try JSONParser.parse(RawSocket.http(port: server.port, path: "/api/jobs/\(id)/results?offset=1&limit=5").body)
        XCTAssertEqual(results["total"]?.intValue, 2)
        XCTAssertEqual(results["values"]?.arrayValue?.count, 1)
        let list = try JSONParser.parse(RawSocket.http(port: server.port, path: "/api/jobs").body)
        XCTAssertEqual(list["jobs"]?.arrayValue?.count, 1)
        XCTAssertEqual(try RawSocket.http(port: server.port, path: "/api/jobs/j-missing").status, 404)
        XCTAssertEqual(try RawSocket.http(port: server.port, method: "POST", path: "/api/jobs", body: "{oops").status, 400)
        let big = String(repeating: "x", count: 70_000)
        XCTAssertEqual(try RawSocket.http(port: server.port, method: "POST", path: "/api/jobs", body: big).status, 413)
        let health = try JSONParser.parse(RawSocket.http(port: server.port, path: "/healthz").body)
        XCTAssertEqual(health["status"]?.stringValue, "ok")
        let metrics = try RawSocket.http(port: server.port, path: "/metrics").body
        XCTAssertTrue(metrics.contains("herald_jobs_finished_total{kind=\"search\",state=\"succeeded\"} 1"), metrics)
        // The allocator's live heap: a server holds at least 100 KB. ThreadSanitizer's allocator
        // reports none, and the family is left out.
        let inUse = metrics.split(separator: "\n").first { $0.hasPrefix("herald_heap_bytes{state=\"in_use\"} ") }
        if dlsym(nil, "__tsan_init") == nil {
            XCTAssertGreaterThan(inUse.flatMap { Int($0.split(separator: " ")[1]) } ?? 0, 100_000, metrics)
            XCTAssertTrue(metrics.contains("herald_heap_bytes{state=\"free\"} "), metrics)
        } else {
            XCTAssertNil(inUse, metrics)
        }
    }

    func testMetricsHaveTheDeliveryLatencyOfEventsWrittenToAClient() throws {
        let server = try LiveServer(runners: [GateRunner(steps: 3, free: true)])
        defer { server.stop() }
        let client = try server.client()
        client.waitFor("snapshot") { $0.type == "snapshot" }
        client.send(["type": "start", "kind": "search", "params": ["query": "x"]])
        client.waitFor("succeeded") { $0["job"]?["state"]?.stringValue == "succeeded" }
        // The job's events reached the client: at least one write batch held a live event.
        let metrics = try server.metrics { LiveServer.sample("herald_delivery_latency_seconds_count", in: $0) ?? 0 > 0 }
        XCTAssertTrue(metrics.contains("# TYPE herald_delivery_latency_seconds histogram\n"), metrics)
        let samples = metrics.split(separator: "\n").filter { $0.hasPrefix("herald_delivery_latency_seconds") }
        XCTAssertEqual(samples.filter { $0.contains("_bucket{le=") }.count, ServerMetrics.deliveryLatencyBounds.count)
        let count = LiveServer.sample("herald_delivery_latency_seconds_count", in: metrics)
        XCTAssertGreaterThan(count ?? 0, 0, metrics)
        let infinite = samples.first { $0.hasPrefix("herald_delivery_latency_seconds_bucket{le=\"+Inf\"} ") }
        XCTAssertEqual(infinite?.split(separator: " ").last.flatMap { Int($0) }, count, "+Inf counts every observation")
        client.close()
    }
}
