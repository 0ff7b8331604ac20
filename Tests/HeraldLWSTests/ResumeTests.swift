import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// A client that reconnects loses nothing: the missed events, or a snapshot when they are gone.
final class ResumeTests: XCTestCase {
    private func runJob(_ server: LiveServer, _ client: TestClient, request: String) {
        client.send(["type": "start", "kind": "search", "params": ["query": "x"], "requestId": .string(request)])
        client.waitFor("job \(request) succeeded") { value in
            value.type == "job" && value["job"]?["requestId"]?.stringValue == request && value["job"]?["state"]?.stringValue == "succeeded"
        }
    }

    func testResumeCommandReturnsExactlyTheMissedEvents() throws {
        let server = try LiveServer(runners: [GateRunner(steps: 3, free: true)])
        defer { server.stop() }
        let watcher = try server.client()
        let first = try server.client()
        let snapshot = try XCTUnwrap(first.waitFor("snapshot") { $0.type == "snapshot" })
        let epoch = try XCTUnwrap(snapshot["epoch"]?.stringValue)
        runJob(server, watcher, request: "a")
        let seen = try XCTUnwrap(first.waitFor("a done") { $0["job"]?["state"]?.stringValue == "succeeded" }?.seq)
        first.close()
        _ = first.waitForClose()

        runJob(server, watcher, request: "b")  // happens while `first` is away
        let missed = watcher.events.filter { ($0.seq ?? 0) > seen }
        XCTAssertFalse(missed.isEmpty)

        let back = try server.client()
        back.waitFor("snapshot") { $0.type == "snapshot" }
        back.send(["type": "resume", "epoch": .string(epoch), "since": .int(seen)])
        let last = try XCTUnwrap(missed.last?.seq)
        back.waitFor("the last missed event") { $0.type != "snapshot" && $0.seq == last }
        let replayed = back.received.drop { $0.type == "snapshot" }.filter { $0.seq != nil }
        XCTAssertEqual(Array(replayed), missed, "exactly the missed events, in order")
    }

    func testResumeWhileConnectingWithTheURL() throws {
        let server = try LiveServer(runners: [GateRunner(steps: 2, free: true)])
        defer { server.stop() }
        let watcher = try server.client()
        let epoch = try XCTUnwrap(watcher.waitFor("snapshot") { $0.type == "snapshot" }?["epoch"]?.stringValue)
        runJob(server, watcher, request: "a")
        let since: Int64 = 2
        let back = try server.client(path: "/ws?epoch=\(epoch)&since=\(since)")
        let last = try XCTUnwrap(watcher.events.last?.seq)
        back.waitFor("caught up") { $0.seq == last }
        XCTAssertFalse(back.received.contains { $0.type == "snapshot" }, "no snapshot when the log has the events")
        XCTAssertEqual(back.received.compactMap(\.seq), Array((since + 1)...last))
    }

    func testWrongEpochOrTooOldGetsASnapshot() throws {
        let server = try LiveServer(
            runners: [GateRunner(steps: 3, free: true)],
            engineConfiguration: EngineConfiguration(progressEventsPerSecond: 1000, eventLogSize: 4))
        defer { server.stop() }
        let client = try server.client()
        let epoch = try XCTUnwrap(client.waitFor("snapshot") { $0.type == "snapshot" }?["epoch"]?.stringValue)
        runJob(server, client, request: "a")

        client.send(["type": "resume", "epoch": "not-this-one", "since": 1])
        let wrongEpoch = client.waitFor("snapshot for a wrong epoch") { $0.type == "snapshot" && $0["reason"]?.stringValue == "resume" }
        XCTAssertEqual(wrongEpoch?["jobs"]?.arrayValue?.count, 1)

        let other = try server.client()
        other.waitFor("snapshot") { $0.type == "snapshot" }
        other.send(["type": "resume", "epoch": .string(epoch), "since": 1])
        let tooOld = other.waitFor("snapshot for a too-old seq") { $0.type == "snapshot" && $0["reason"]?.stringValue == "resume" }
        XCTAssertEqual(tooOld?["seq"]?.intValue, server.engine.snapshot().seq)
    }
}
