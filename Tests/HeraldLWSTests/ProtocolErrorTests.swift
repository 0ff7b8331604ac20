import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// Bad input gets a clear error and the connection stays usable; only size and encoding close it.
final class ProtocolErrorTests: XCTestCase {
    private func errorCode(for command: String, on client: TestClient, id: String) -> String? {
        client.client.send(command)
        return client.waitFor("error \(id)") { $0.type == "error" && $0["requestId"]?.stringValue == id }?["code"]?.stringValue
    }

    func testEachErrorCodeAndTheConnectionStaysOpen() throws {
        let runner = GateRunner(steps: 1)
        let server = try LiveServer(runners: [runner])
        defer { server.stop() }
        let client = try server.client()
        client.client.send("{not json")
        XCTAssertEqual(client.waitFor("bad_json") { $0.type == "error" }?["code"]?.stringValue, "bad_json")
        XCTAssertEqual(errorCode(for: #"{"type":"start","requestId":"a"}"#, on: client, id: "a"), "bad_request")
        XCTAssertEqual(errorCode(for: #"{"type":"launch","requestId":"b"}"#, on: client, id: "b"), "unknown_type")
        XCTAssertEqual(errorCode(for: #"{"type":"start","kind":"teleport","requestId":"c"}"#, on: client, id: "c"), "unknown_kind")
        XCTAssertEqual(errorCode(for: #"{"type":"cancel","job":"j-nosuchjob","requestId":"d"}"#, on: client, id: "d"), "not_found")
        XCTAssertEqual(errorCode(for: #"{"type":"page","job":"j-nosuchjob","requestId":"e"}"#, on: client, id: "e"), "not_found")
        XCTAssertEqual(
            errorCode(for: #"{"type":"start","kind":"search","params":{"query":""},"requestId":"f"}"#, on: client, id: "f"), "bad_request")
        let nested = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        client.client.send(#"{"type":"ping","requestId":"g","x":"# + nested + "}")
        XCTAssertEqual(
            client.waitFor("nesting refused") { $0.type == "error" && ($0["message"]?.stringValue ?? "").contains("nesting") }?["code"]?
                .stringValue, "bad_json")
        client.send(["type": "ping"])
        XCTAssertNotNil(client.waitFor("pong after all those errors") { $0.type == "pong" })
        let named = client.received.first { $0["requestId"]?.stringValue == "a" }?["message"]?.stringValue ?? ""
        XCTAssertTrue(named.contains("kind"), "bad_request names the field: \(named)")
    }

    func testOversizedMessageClosesWith1009() throws {
        let server = try LiveServer(runners: [GateRunner()]) { $0.maxMessageBytes = 4096 }
        defer { server.stop() }
        let client = try server.client()
        client.client.send(String(repeating: "x", count: 5000))
        XCTAssertEqual(client.waitForClose(), .some(1009))
        let other = try server.client()
        XCTAssertNotNil(other.waitFor("the server still serves") { $0.type == "snapshot" })
    }

    /// The server writes a delivery at once when the stream had paused (here: an event every 5 ms),
    /// outside libwebsockets' writable callback, and libwebsockets, having sent a close frame, may
    /// keep the socket open for the peer's: a connection being closed must get nothing after its
    /// close frame while events go on streaming.
    func testNothingFollowsTheCloseFrameWhileEventsStream() throws {
        let runner = GateRunner(steps: 10_000_000, free: true)
        let server = try LiveServer(runners: [runner]) { $0.maxMessageBytes = 4096 }
        defer { server.stop() }
        let socket = try RawSocket.webSocket(port: server.port)
        let started = try RawSocket.http(
            port: server.port, method: "POST", path: "/api/jobs", body: #"{"kind":"search","params":{"query":"x","pace":5000}}"#)
        let id = try XCTUnwrap(try JSONParser.parse(started.body)["id"]?.stringValue)
        defer { _ = try? RawSocket.http(port: server.port, method: "POST", path: "/api/jobs/\(id)/cancel") }
        let streaming = socket.readKeepingBytes(until: #""type":"results""#, timeout: 10)
        XCTAssertTrue(RawSocket.contains(streaming, Array(#""type":"results""#.utf8)), "events stream to the connection")
        socket.send(RawSocket.maskedTextFrame(Array(repeating: UInt8(ascii: "x"), count: 5000)))
        // Until the server hangs up, or 10 s pass without a byte.
        let frames = RawSocket.frames(streaming + socket.readAll(timeout: 10))
        let closes = frames.indices.filter { frames[$0].opcode == 0x8 }
        XCTAssertEqual(closes.count, 1, "one close frame")
        guard let close = closes.first else { return }
        let payload = frames[close].payload
        XCTAssertEqual(payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil, 1009)
        XCTAssertEqual(frames.count - 1 - close, 0, "frames after the close frame: \(frames[(close + 1)...].map { $0.opcode })")
    }

    func testInvalidUTF8ClosesWith1007() throws {
        let server = try LiveServer(runners: [GateRunner()])
        defer { server.stop() }
        let client = try server.client()
        client.client.send(bytes: [0x7B, 0xFF, 0xFE, 0x7D])
        XCTAssertEqual(client.waitForClose(), .some(1007))
    }

    func testCommandFloodIsRateLimited() throws {
        let server = try LiveServer(runners: [GateRunner()]) {
            $0.commandsPerSecond = 1
            $0.commandBurst = 3
        }
        defer { server.stop() }
        let client = try server.client()
        for _ in 0..<10 { client.send(["type": "ping"]) }
        XCTAssertEqual(client.waitFor("rate_limited") { $0.type == "error" }?["code"]?.stringValue, "rate_limited")
        XCTAssertEqual(client.received.filter { $0.type == "pong" }.count, 3, "the burst is served, the rest refused")
    }

    func testTokenGuardsControlButNotWatching() throws {
        let server = try LiveServer(runners: [GateRunner(steps: 1, free: true)]) { $0.controlToken = "s3cret" }
        defer { server.stop() }
        let watcher = try server.client()
        XCTAssertNotNil(watcher.waitFor("snapshot without a token") { $0.type == "snapshot" })
        let start: JSONValue = ["type": "start", "kind": "search", "params": ["query": "x"], "requestId": "s1"]
        watcher.send(start)
        XCTAssertEqual(watcher.waitFor("refused") { $0["requestId"]?.stringValue == "s1" }?["code"]?.stringValue, "unauthorized")
        watcher.send(["type": "auth", "token": "wrong", "requestId": "a1"])
        XCTAssertEqual(watcher.waitFor("wrong token") { $0["requestId"]?.stringValue == "a1" }?["code"]?.stringValue, "unauthorized")
        watcher.send(["type": "auth", "token": "s3cret", "requestId": "a2"])
        XCTAssertEqual(watcher.waitFor("right token") { $0["requestId"]?.stringValue == "a2" }?.type, "accepted")
        watcher.send(["type": "start", "kind": "search", "params": ["query": "x"], "requestId": "s2"])
        XCTAssertEqual(watcher.waitFor("started") { $0["requestId"]?.stringValue == "s2" }?.type, "accepted")
        // One search at a time: let it end before the next client starts another.
        watcher.waitFor("s2 finished") { $0.type == "job" && $0["job"]?["state"]?.stringValue == "succeeded" }

        let bearer = try server.client(token: "s3cret")
        bearer.waitFor("snapshot") { $0.type == "snapshot" }
        bearer.send(["type": "start", "kind": "search", "params": ["query": "y"], "requestId": "s3"])
        XCTAssertEqual(bearer.waitFor("bearer header works") { $0["requestId"]?.stringValue == "s3" }?.type, "accepted")
    }

    func testHandshakeRefusals() throws {
        let server = try LiveServer(runners: [GateRunner()])
        defer { server.stop() }
        XCTAssertThrowsError(try server.client(path: "/elsewhere"), "only /ws upgrades")
        XCTAssertThrowsError(try server.client(origin: "http://evil.example"), "a foreign Origin is refused")
        let sameOrigin = try server.client(origin: "http://127.0.0.1:\(server.port)")
        XCTAssertNotNil(sameOrigin.waitFor("same origin accepted") { $0.type == "snapshot" })
        let metrics = try server.metrics { $0.contains("herald_connections_refused_total 2") }
        XCTAssertTrue(metrics.contains("herald_connections_refused_total 2"), metrics)
    }
}

/// Limits on who may connect, and the test-only echo endpoint.
final class ConnectionLimitTests: XCTestCase {
    func testConnectionsBeyondTheLimitAreRefusedAndOthersStillServed() throws {
        let server = try LiveServer(runners: [GateRunner()]) { $0.maxConnections = 2 }
        defer { server.stop() }
        let first = try server.client()
        let second = try server.client()
        XCTAssertThrowsError(try server.client(), "the third is refused at the handshake")
        first.send(["type": "ping"])
        XCTAssertNotNil(first.waitFor("the first still served") { $0.type == "pong" })
        second.close()
        _ = second.waitForClose()
        let deadline = Date(timeIntervalSinceNow: 10)
        var third: TestClient?
        while third == nil, Date() < deadline { third = try? server.client() }
        XCTAssertNotNil(third?.waitFor("a place freed up") { $0.type == "snapshot" })
    }

    func testEchoEndpointOnlyWhenEnabled() throws {
        let plain = try LiveServer(runners: [GateRunner()])
        XCTAssertThrowsError(try plain.client(path: "/echo"), "off by default")
        plain.stop()
        let server = try LiveServer(runners: [GateRunner()]) { $0.echoEndpoint = true }
        defer { server.stop() }
        let echo = try server.client(path: "/echo")
        let big = String(repeating: "é", count: 50_000)
        echo.client.send(big)
        guard case .message(let text)? = echo.client.next(timeout: 10) else { return XCTFail("no echo") }
        XCTAssertEqual(text, big, "echoed whole, even past the 64 KiB command limit")
    }
}
