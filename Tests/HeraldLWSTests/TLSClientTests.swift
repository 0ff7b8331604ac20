import Foundation
import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// The client over wss:// against the server's own TLS (`tlsCertificatePath`), with a throwaway CA:
/// trusted through `ClientTLS.caFile`, refused without it or when the certificate names another host.
final class TLSClientTests: XCTestCase {
    private var certificates: TestCertificates!

    override func setUpWithError() throws {
        certificates = try TestCertificates()
    }

    override func tearDown() {
        certificates?.remove()
    }

    func testTrustedCAGetsTheSnapshotOverWSS() throws {
        let server = try tlsServer(ip: "127.0.0.1")
        defer { server.stop() }
        let context = try ClientContext(tls: .caFile(certificates.caFile))
        let client = try WebSocketClient(url: secureURL(server), context: context)
        try client.connect(timeout: 10)
        let test = TestClient(client)
        test.waitFor("snapshot") { $0.type == "snapshot" }
        test.send(["type": "ping"])
        test.waitFor("pong") { $0.type == "pong" }
        test.close()
        let closed = test.waitForClose()
        XCTAssertTrue(closed != nil, "the connection ends")
    }

    /// Without the CA, the system's trust store does not know it: a `.tls` failure naming the reason,
    /// well within the connect timeout.
    func testUnknownCAIsRefusedWithAReason() throws {
        let server = try tlsServer(ip: "127.0.0.1")
        defer { server.stop() }
        let started = ContinuousClock.now
        let client = try WebSocketClient(url: secureURL(server))  // its own context, the system's CAs
        XCTAssertThrowsError(try client.connect(timeout: 10)) { error in
            let failure = error as? WebSocketClient.Failure
            XCTAssertEqual(failure?.kind, .tls, "\(error)")
            XCTAssertTrue("\(error)".contains("certificate was refused (unable to get local issuer certificate)"), "\(error)")
        }
        XCTAssertLessThan(started.duration(to: .now), .seconds(5), "refused at once, not timed out")
    }

    /// The CA is trusted but the certificate is for another address: the host check refuses it.
    func testCertificateForAnotherAddressIsRefused() throws {
        let server = try tlsServer(ip: "127.0.0.2")
        defer { server.stop() }
        let client = try WebSocketClient(url: secureURL(server), context: try ClientContext(tls: .caFile(certificates.caFile)))
        XCTAssertThrowsError(try client.connect(timeout: 10)) { error in
            XCTAssertEqual((error as? WebSocketClient.Failure)?.kind, .tls, "\(error)")
            XCTAssertTrue("\(error)".contains("IP address mismatch"), "\(error)")
        }
    }

    func testUnusableCAFileThrowsUpFront() throws {
        XCTAssertThrowsError(try ClientContext(tls: .caFile(certificates.folder.appendingPathComponent("missing.pem").path))) { error in
            XCTAssertEqual((error as? WebSocketClient.Failure)?.kind, .tls)
            XCTAssertTrue("\(error)".contains("cannot read the CA file"), "\(error)")
        }
        let key = certificates.folder.appendingPathComponent("ca.key").path
        XCTAssertThrowsError(try ClientContext(tls: .caFile(key))) { error in
            XCTAssertTrue("\(error)".contains("holds no PEM certificate"), "\(error)")
        }
    }

    func testWSSNeedsATLSContext() throws {
        let url = WebSocketURL(host: "127.0.0.1", port: 9, path: "/ws", isSecure: true)
        XCTAssertThrowsError(try WebSocketClient(url: url, context: try ClientContext())) { error in
            XCTAssertEqual((error as? WebSocketClient.Failure)?.kind, .tls)
        }
    }

    /// A plain ws:// connection still works on a TLS context (one context can serve both).
    func testPlainConnectionOnATLSContext() throws {
        let server = try LiveServer(runners: [GateRunner()])
        defer { server.stop() }
        let client = try server.client(context: try ClientContext(tls: .systemTrust))
        client.waitFor("snapshot") { $0.type == "snapshot" }
    }

    private func tlsServer(ip: String) throws -> LiveServer {
        let (certificate, key) = try certificates.server(ip: ip)
        return try LiveServer(runners: [GateRunner()]) {
            $0.tlsCertificatePath = certificate
            $0.tlsKeyPath = key
        }
    }

    private func secureURL(_ server: LiveServer) -> WebSocketURL {
        WebSocketURL(host: "127.0.0.1", port: server.port, path: "/ws", isSecure: true)
    }
}
