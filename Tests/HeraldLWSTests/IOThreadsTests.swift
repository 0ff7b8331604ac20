import Foundation
import HeraldEngine
import HeraldServer
import HeraldTestSupport
import XCTest

@testable import HeraldLWS

/// A server on two service threads (`ioThreads` 2) and one (`ioThreads` 1): real clients, one port,
/// every client gets every event once and in order whichever thread serves it, `/metrics` counts
/// every thread's connections, and stop closes them all with 1001.
final class IOThreadsTests: XCTestCase {
    private func streamReachesEveryClient(threads: Int, clients count: Int) throws {
        let server = try LiveServer(runners: [GateRunner(steps: 20, free: true)]) { $0.ioThreads = threads }
        defer { server.stop() }
        let clients = try (0..<count).map { _ in try server.client() }
        for client in clients { client.waitFor("snapshot") { $0.type == "snapshot" } }
        clients[0].send(["type": "start", "kind": "search", "params": ["query": "x"]])
        for client in clients { client.waitFor("succeeded") { $0.type == "job" && $0["job"]?["state"]?.stringValue == "succeeded" } }
        let expected = clients[0].events.compactMap(\.seq)
        XCTAssertGreaterThan(expected.count, 20)
        XCTAssertEqual(expected, Array(expected[0]...(expected[0] + Int64(expected.count) - 1)), "each event once, in order")
        for client in clients { XCTAssertEqual(client.events.compactMap(\.seq), expected, "every client the same stream") }

        XCTAssertEqual(server.server.fanOut?.routing.threads ?? 1, threads)
        if let fanOut = server.server.fanOut {
            // Each thread leaves its counts at its keepalive sweep (once a second): wait for both.
            let deadline = Date(timeIntervalSinceNow: 10)
            while fanOut.metrics.copies.reduce(0, { $0 + $1.connectionsOpen }) < count, Date() < deadline {
                _ = try RawSocket.http(port: server.port, path: "/healthz")
            }
            let perThread = fanOut.metrics.copies.map(\.connectionsOpen)
            XCTAssertEqual(perThread.reduce(0, +), count, "\(perThread)")
            XCTAssertTrue(perThread.allSatisfy { $0 > 0 }, "the kernel gave each thread some connections: \(perThread)")
        }
        let metrics = try RawSocket.http(port: server.port, path: "/metrics").body
        XCTAssertTrue(metrics.contains("\nherald_connections_open \(count)\n"), "every thread's connections: \(metrics)")

        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [transport = server.server] in
            transport.stop()
            done.signal()
        }
        for client in clients { XCTAssertEqual(client.waitForClose(timeout: 15), .some(1001)) }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "stop joined every service thread")
        // No listening socket outlives the server (lws closes the ones its contexts adopted): the port
        // binds again without sharing.
        XCTAssertNotNil(PlainListener(port: server.port), "port \(server.port) is free again")
    }

    func testTwoServiceThreadsShareOnePortAndOneStream() throws {
        try streamReachesEveryClient(threads: 2, clients: 24)
    }

    func testOneServiceThreadServesAsBefore() throws {
        try streamReachesEveryClient(threads: 1, clients: 4)
    }

    func testAPortTakenElsewhereIsAClearStartError() throws {
        // A socket that does not share the port (no SO_REUSEPORT) holds it.
        guard let plain = PlainListener() else { return XCTFail("a free port") }
        defer { withExtendedLifetime(plain) {} }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-io-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = JobDispatcher(
            configuration: EngineConfiguration(),
            environment: JobEnvironment(searchRoot: folder, dataDirectory: folder, newsSource: NewsSource()), runners: [])
        defer { engine.shutdown(grace: 0) }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = plain.port
        configuration.ioThreads = 2
        let server = WebSocketServer(configuration: configuration, engine: engine, logger: Logger(level: .error), version: "test")
        XCTAssertThrowsError(try server.start()) { error in
            XCTAssertTrue("\(error)".contains("Address already in use"), "\(error)")
        }
        server.stop()
    }
}
