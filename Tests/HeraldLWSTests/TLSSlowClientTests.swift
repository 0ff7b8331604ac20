import Foundation
import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// Slow clients over TLS (`--tls-cert`). Their writes go through lws (`lws_write`, lws owns the TLS
/// session), which keeps what the socket refuses: these tests stall a reader until lws holds part of
/// a write for it (a 4 KiB receive buffer, and a small send buffer on the server's end), then end
/// the connection from either side while those bytes wait.
///
/// A server whose service thread stops serving cannot be stopped (`stop` waits for that thread), so
/// a test that finds it not answering fails and leaves it.
final class TLSSlowClientTests: XCTestCase {
    private var certificates: TestCertificates!

    override func setUpWithError() throws {
        certificates = try TestCertificates()
    }

    override func tearDown() {
        certificates?.remove()
    }

    /// The server closes a stalled reader by the 4008 rule while lws holds part of a write for it:
    /// the close frame cannot be written (its socket takes nothing, so its writable callback never
    /// comes), and the connection is dropped once its close has waited `StreamHub.closeGraceSeconds`,
    /// not at the keepalive's hang-up time (set far away here). The reader, reading again, sees the
    /// connection end; the server answers /healthz throughout and streams to a new viewer after.
    func testAStalledReaderClosedWith4008WhileLwsHoldsItsBytesIsDroppedWithinTheGrace() throws {
        let server = try tlsServer {
            $0.ringBytes = 64 * 1024
            $0.resyncLimit = 3
            $0.resyncWindowSeconds = 60
            $0.pingAfterSeconds = 600
            $0.hangupAfterSeconds = 1200
        }
        let (stalled, _) = try stalledReader(server)
        let job = try startStream(server)
        var metrics = ""
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline, !metrics.contains("herald_slow_client_closes_total 1") {
            metrics = try TLSSocket.http(port: server.port, path: "/metrics").body
        }
        XCTAssertTrue(metrics.contains("herald_slow_client_closes_total 1"), "the stalled reader was to be closed with 4008")

        let connections = waitForConnections(server, 0, timeout: StreamHub.closeGraceSeconds + 15)
        guard connections != nil else { return XCTFail("the server stopped answering") }
        XCTAssertEqual(connections, 0, "the connection whose close could not be written was dropped")
        stalled.raw.setReceiveBuffer(1 << 20)
        XCTAssertTrue(stalled.read(timeout: 20).ended, "reading again, the reader reaches the end of the connection")
        try assertAViewerGetsEvents(server)
        _ = try TLSSocket.http(port: server.port, method: "POST", path: "/api/jobs/\(job)/cancel")
        server.stop()
    }

    /// A stalled reader ends its TLS session (its close_notify, then a FIN) while lws holds part of
    /// a write for it. lws 4.1, reading that close_notify, waits to flush before closing, and its
    /// service loop reads the same end of session again at once, forever, serving nothing else:
    /// reproduced here with reading left on while lws holds the bytes (`BatchWriter.write`'s TLS
    /// branch without its pause): /healthz stopped answering and the service thread spun at 100 %.
    /// Paused, lws does not read it; the keepalive sweep finds the socket in CLOSE_WAIT and drops it.
    func testAReaderThatEndsItsSessionWhileLwsHoldsItsBytesIsDroppedAndTheServerGoesOn() throws {
        let server = try tlsServer { $0.resyncLimit = 1_000 }
        let (stalled, accepted) = try stalledReader(server)
        let job = try startStream(server)
        waitUntilFull(stalled, accepted)
        stalled.closeNotifyAndHangUp()

        let connections = waitForConnections(server, 0, timeout: 10)
        guard connections == 0 else {
            return XCTFail("the server stopped answering, or kept the connection (connections: \(String(describing: connections)))")
        }
        try assertAViewerGetsEvents(server)
        _ = try TLSSocket.http(port: server.port, method: "POST", path: "/api/jobs/\(job)/cancel")
        server.stop()
    }

    /// A server stopping while lws holds part of a write for a stalled reader stops within its
    /// closing deadline (the 1001 cannot be written), and the reader sees the connection end.
    func testAServerStoppingWhileLwsHoldsAReadersBytesStopsAndTheReaderSeesTheEnd() throws {
        let server = try tlsServer { $0.resyncLimit = 1_000 }
        let (stalled, accepted) = try stalledReader(server)
        _ = try startStream(server)
        waitUntilFull(stalled, accepted)
        let stopping = Date()
        server.stop()
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 10, "stopped within the closing deadline (2 s)")
        stalled.raw.setReceiveBuffer(1 << 20)
        XCTAssertTrue(stalled.read(timeout: 20).ended, "the reader reaches the end of the connection")
    }

    // MARK: - Helpers

    private func tlsServer(_ configure: (inout ServerConfiguration) -> Void) throws -> LiveServer {
        let (certificate, key) = try certificates.server(ip: "127.0.0.1")
        return try LiveServer(runners: [GateRunner(steps: 10_000_000, free: true)]) {
            $0.tlsCertificatePath = certificate
            $0.tlsKeyPath = key
            configure(&$0)
        }
    }

    /// A WebSocket over TLS that reads nothing after its handshake, with a 4 KiB receive buffer and
    /// a 4 KiB send buffer at the server's end (`RawSocket.shrinkServerSendBuffer`), whose
    /// descriptor comes with it.
    private func stalledReader(_ server: LiveServer) throws -> (TLSSocket, Int32) {
        let stalled = try TLSSocket.webSocket(port: server.port, receiveBuffer: 4096)
        return (stalled, try stalled.raw.shrinkServerSendBuffer())
    }

    /// Waits until both ends' kernel buffers hold bytes the reader has not read: an event's write
    /// has been cut short, and lws keeps the rest.
    private func waitUntilFull(_ stalled: TLSSocket, _ accepted: Int32, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline,
            RawSocket.queuedBytes(stalled.raw.descriptor, unread: true) < 2048 || RawSocket.queuedBytes(accepted, unread: false) < 2048
        {
            usleep(2_000)
        }
        XCTAssertGreaterThanOrEqual(
            RawSocket.queuedBytes(accepted, unread: false), 2048, "the server's end is full", file: file, line: line)
    }

    /// An endless stream (until cancelled) of 16 KB events, about 200 a second: each is more than the
    /// stalled reader's socket can hold, so the first write of one to it is cut short and lws keeps
    /// the rest. Returns the job's id.
    private func startStream(_ server: LiveServer) throws -> String {
        let started = try TLSSocket.http(
            port: server.port, method: "POST", path: "/api/jobs", body: #"{"kind":"search","params":{"query":"x","pad":16000,"pace":5000}}"#
        )
        return try XCTUnwrap(try JSONParser.parse(started.body)["id"]?.stringValue)
    }

    /// Asks /healthz until it counts `count` WebSocket connections or `timeout` passes: the last
    /// count, or nil once the server does not answer (its TLS handshake times out after 10 s).
    private func waitForConnections(_ server: LiveServer, _ count: Int64, timeout: Double) -> Int64? {
        var connections: Int64?
        let deadline = Date(timeIntervalSinceNow: timeout)
        repeat {
            guard let health = try? TLSSocket.http(port: server.port, path: "/healthz"), health.status == 200 else { return nil }
            connections = try? JSONParser.parse(health.body)["connections"]?.intValue
            if connections == count { return connections }
            usleep(50_000)
        } while Date() < deadline
        return connections
    }

    private func assertAViewerGetsEvents(_ server: LiveServer, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = WebSocketURL(host: "127.0.0.1", port: server.port, path: "/ws", isSecure: true)
        let client = try WebSocketClient(url: url, context: try ClientContext(tls: .caFile(certificates.caFile)))
        try client.connect(timeout: 10)
        let viewer = TestClient(client)
        viewer.waitFor("an event of the stream", file: file, line: line) { $0.type == "results" }
        viewer.close()
    }
}
