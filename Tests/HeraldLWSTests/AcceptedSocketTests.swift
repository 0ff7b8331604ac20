import Foundation
import HeraldEngine
import HeraldTestSupport
import XCTest

/// What the server sets on each socket it accepts, with one service thread and with two (it accepts
/// on its own listening sockets either way).
final class AcceptedSocketTests: XCTestCase {
    /// Without TCP_NODELAY, Nagle holds a small write until the peer's delayed ACK: 40 ms for a
    /// keep-alive HTTP answer or a lone frame after a quiet moment.
    func testEveryAcceptedConnectionSendsWithoutDelay() throws {
        for threads in [1, 2] {
            let server = try LiveServer(runners: [GateRunner()]) { $0.ioThreads = threads }
            defer { server.stop() }
            let clients = try (0..<8).map { _ in try RawSocket.webSocket(port: server.port) }
            for client in clients {
                guard let accepted = client.acceptedEnd() else { return XCTFail("the server's end of a connection was not found") }
                var value: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                XCTAssertEqual(getsockopt(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length), 0)
                XCTAssertEqual(value, 1, "TCP_NODELAY on \(threads) thread(s)")
            }
        }
    }
}
