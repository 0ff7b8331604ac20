import Foundation
import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// `HeraldApp`, the few-lines way to serve one's own job kinds: it offers exactly the runners given,
/// says where it listens, and `stop` ends a `runUntilSignal` wait with history written.
final class HeraldAppTests: XCTestCase {
    func testServesItsOwnKindOnlyAndStopsARunUntilSignalWait() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let app = HeraldApp(
            runners: [GateRunner(kind: JobKind("greet"), steps: 3, free: true)], port: 0,
            dataDirectory: folder.appendingPathComponent("data"), logLevel: .warning, version: "9.9.9")
        XCTAssertNil(app.url, "no address before start")
        let port = try app.start()
        XCTAssertGreaterThan(port, 0)
        XCTAssertEqual(app.url, "http://127.0.0.1:\(port)/")

        let started = try RawSocket.http(port: port, method: "POST", path: "/api/jobs", body: #"{"kind":"greet","params":{}}"#)
        XCTAssertEqual(started.status, 202, started.body)
        let id = try XCTUnwrap(try JSONParser.parse(Array(started.body.utf8)).objectValue?["id"]?.stringValue)
        let deadline = Date().addingTimeInterval(10)
        var state: String?
        repeat {
            let job = try RawSocket.http(port: port, path: "/api/jobs/\(id)")
            state = try JSONParser.parse(Array(job.body.utf8)).objectValue?["state"]?.stringValue
            if state == "succeeded" { break }
            usleep(20_000)
        } while Date() < deadline
        XCTAssertEqual(state, "succeeded")

        let search = try RawSocket.http(port: port, method: "POST", path: "/api/jobs", body: #"{"kind":"search","params":{"query":"x"}}"#)
        XCTAssertEqual(search.status, 400, "only the runners given are offered")
        XCTAssertTrue(search.body.contains("unknown_kind"), search.body)
        XCTAssertTrue(try RawSocket.http(port: port, path: "/healthz").body.contains(#""version":"9.9.9""#))

        let returned = expectation(description: "runUntilSignal returned")
        DispatchQueue.global().async {
            app.runUntilSignal()
            returned.fulfill()
        }
        app.stop()
        wait(for: [returned], timeout: 20)
        XCTAssertNil(app.url, "stopped")
        XCTAssertThrowsError(try RawSocket.http(port: port, path: "/healthz"), "nothing listens any more")
        let history = try String(contentsOf: folder.appendingPathComponent("data/jobs.jsonl"), encoding: .utf8)
        XCTAssertTrue(history.contains(id), "history was written")
    }
}
