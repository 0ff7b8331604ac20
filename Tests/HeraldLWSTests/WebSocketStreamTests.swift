import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// The real server and real clients: the stream every watcher sees.
final class WebSocketStreamTests: XCTestCase {
    func testSnapshotOnConnectDescribesTheServer() throws {
        let server = try LiveServer(runners: [GateRunner()])
        defer { server.stop() }
        let client = try server.client()
        let snapshot = try XCTUnwrap(client.waitFor("snapshot") { $0.type == "snapshot" })
        XCTAssertEqual(snapshot["protocol"]?.intValue, 1)
        XCTAssertEqual(snapshot["reason"]?.stringValue, "connect")
        XCTAssertEqual(snapshot["epoch"]?.stringValue, server.engine.epoch)
        XCTAssertEqual(snapshot["seq"]?.intValue, 0)
        XCTAssertEqual(snapshot["jobs"]?.arrayValue?.count, 0)
        XCTAssertEqual(snapshot["limits"]?["maxMessageBytes"]?.intValue, 65536)
        XCTAssertEqual(snapshot["limits"]?["kinds"]?["search"]?["maxConcurrent"]?.intValue, 1)
    }

    func testStartStreamsLifecycleProgressAndResultsInOrder() throws {
        let runner = GateRunner(steps: 3, free: true)
        let server = try LiveServer(runners: [runner])
        defer { server.stop() }
        let client = try server.client()
        client.waitFor("snapshot") { $0.type == "snapshot" }
        client.send(["type": "start", "kind": "search", "params": ["query": "x"], "requestId": "r1"])
        let accepted = try XCTUnwrap(client.waitFor("accepted") { $0.type == "accepted" })
        XCTAssertEqual(accepted["requestId"]?.stringValue, "r1")
        let id = try XCTUnwrap(accepted["job"]?.stringValue)
        client.waitFor("succeeded") { $0.type == "job" && $0["job"]?["state"]?.stringValue == "succeeded" }

        let events = client.events
        let seqs = events.compactMap(\.seq)
        XCTAssertEqual(seqs, Array(1...Int64(seqs.count)), "seq grows by exactly one per event")
        let states = events.filter { $0.type == "job" }.compactMap { $0["job"]?["state"]?.stringValue }
        XCTAssertEqual(states, ["queued", "running", "succeeded"])
        let progress = events.filter { $0.type == "progress" }
        XCTAssertEqual(progress.last?["completed"]?.intValue, 3, "the final value always goes out")
        XCTAssertEqual(progress.last?["fraction"]?.doubleValue, 1)
        XCTAssertEqual(events.filter { $0.type == "results" }.flatMap { $0["items"]?.arrayValue ?? [] }.count, 3)
        let terminal = try XCTUnwrap(events.firstIndex { $0["job"]?["state"]?.stringValue == "succeeded" })
        XCTAssertEqual(terminal, events.count - 1, "nothing about the job follows its final state")
        XCTAssertEqual(events[terminal]["job"]?["summary"]?["steps"]?.intValue, 3)
        XCTAssertTrue(events.allSatisfy { ($0["ts"]?.intValue ?? 0) > 1_700_000_000_000_000 }, "ts is wall-clock microseconds")
        XCTAssertEqual(events.first?["job"]?["id"]?.stringValue, id)
    }

    func testTwoClientsSeeIdenticalSequences() throws {
        let runner = GateRunner(steps: 20, free: true)
        let server = try LiveServer(runners: [runner])
        defer { server.stop() }
        let first = try server.client()
        let second = try server.client()
        first.waitFor("snapshot") { $0.type == "snapshot" }
        second.waitFor("snapshot") { $0.type == "snapshot" }
        first.send(["type": "start", "kind": "search", "params": ["query": "x"]])
        for client in [first, second] {
            client.waitFor("succeeded") { $0.type == "job" && $0["job"]?["state"]?.stringValue == "succeeded" }
        }
        XCTAssertFalse(first.events.isEmpty)
        XCTAssertEqual(first.events, second.events)
    }

    func testSecondSearchWhileOneRunsIsBusy() throws {
        let runner = GateRunner(steps: 2)
        let server = try LiveServer(runners: [runner])
        defer { server.stop() }
        let client = try server.client()
        client.send(["type": "start", "kind": "search", "params": ["query": "a"], "requestId": "one"])
        client.waitFor("running") { $0["job"]?["state"]?.stringValue == "running" }
        client.send(["type": "start", "kind": "search", "params": ["query": "b"], "requestId": "two"])
        let refused = try XCTUnwrap(client.waitFor("busy") { $0.type == "error" && $0["requestId"]?.stringValue == "two" })
        XCTAssertEqual(refused["code"]?.stringValue, "busy")
        runner.step()
        runner.step()
        client.waitFor("succeeded") { $0["job"]?["state"]?.stringValue == "succeeded" }
        client.send(["type": "start", "kind": "search", "params": ["query": "c"], "requestId": "three"])
        XCTAssertNotNil(
            client.waitFor("accepted after the first ended") { $0.type == "accepted" && $0["requestId"]?.stringValue == "three" })
    }

    func testCancelMidJobEndsCancelledWithNoProgressAfter() throws {
        let runner = GateRunner(steps: 100)
        let server = try LiveServer(runners: [runner])
        defer { server.stop() }
        let watcher = try server.client()
        let client = try server.client()
        client.send(["type": "start", "kind": "search", "params": ["query": "x"], "requestId": "s"])
        let id = try XCTUnwrap(client.waitFor("accepted") { $0.type == "accepted" }?["job"]?.stringValue)
        runner.step()
        client.waitFor("progress") { $0.type == "progress" }
        client.send(["type": "cancel", "job": .string(id), "requestId": "c"])
        XCTAssertNotNil(client.waitFor("cancel accepted") { $0.type == "accepted" && $0["requestId"]?.stringValue == "c" })
        for observer in [client, watcher] {
            let final = observer.waitFor("cancelled") { $0.type == "job" && $0["job"]?["state"]?.stringValue == "cancelled" }
            XCTAssertEqual(final?["job"]?["error"]?.stringValue, "cancelled by request")
            let events = observer.events
            let index = try XCTUnwrap(events.firstIndex { $0["job"]?["state"]?.stringValue == "cancelled" })
            XCTAssertFalse(events[(index + 1)...].contains { $0["job"]?.stringValue == id }, "no progress or results after cancelled")
        }
        client.send(["type": "cancel", "job": .string(id), "requestId": "again"])
        XCTAssertEqual(
            client.waitFor("second cancel refused") { $0["requestId"]?.stringValue == "again" }?["code"]?.stringValue, "not_cancellable")
    }

    func testPageReturnsStreamedResults() throws {
        let server = try LiveServer(runners: [GateRunner(steps: 4, free: true)])
        defer { server.stop() }
        let client = try server.client()
        client.send(["type": "start", "kind": "search", "params": ["query": "x"], "requestId": "s"])
        let id = try XCTUnwrap(client.waitFor("accepted") { $0.type == "accepted" }?["job"]?.stringValue)
        client.waitFor("succeeded") { $0["job"]?["state"]?.stringValue == "succeeded" }
        client.send(["type": "page", "job": .string(id), "offset": 1, "limit": 2, "requestId": "p"])
        let page = try XCTUnwrap(client.waitFor("page") { $0.type == "page" })
        XCTAssertEqual(page["requestId"]?.stringValue, "p")
        XCTAssertEqual(page["total"]?.intValue, 4)
        XCTAssertEqual(page["offset"]?.intValue, 1)
        XCTAssertEqual(page["values"]?.arrayValue?.compactMap { $0["step"]?.intValue }, [2, 3])
    }
}
