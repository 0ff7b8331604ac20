import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// A thousand watchers at once, all on one client service thread.
final class ConnectionScaleTests: XCTestCase {
    func testThousandConnectionsAllGetTheSameEvent() throws {
        let server = try LiveServer(runners: [GateRunner(steps: 1, free: true)])
        defer { server.stop() }
        let context = try ClientContext()
        defer { context.shutdown() }
        let count = 1_000
        let clients = try (0..<count).map { _ in try WebSocketClient(url: server.url, context: context) }
        for client in clients { client.connectInBackground() }
        for (index, client) in clients.enumerated() {
            XCTAssertEqual(client.next(timeout: 30), .open, "client \(index) opened")
            guard case .message(let text)? = client.next(timeout: 30) else { return XCTFail("client \(index) got no snapshot") }
            XCTAssertTrue(text.contains(#""type":"snapshot""#))
        }
        let health = try JSONParser.parse(RawSocket.http(port: server.port, path: "/healthz").body)
        XCTAssertEqual(health["connections"]?.intValue, Int64(count))
        clients[0].send(#"{"type":"start","kind":"search","params":{"query":"x"}}"#)
        for (index, client) in clients.enumerated() {
            var sawFinal = false
            while !sawFinal, let event = client.next(timeout: 30) {
                if case .message(let text) = event, text.contains(#""state":"succeeded""#) { sawFinal = true }
            }
            XCTAssertTrue(sawFinal, "client \(index) saw the job finish")
        }
    }
}
