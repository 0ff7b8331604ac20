import Foundation
import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// `ClientContext`'s own life: creation that fails, and a context nobody shuts down.
final class ClientContextTests: XCTestCase {
    /// With no file descriptor left, lws cannot open /dev/urandom, so `lws_create_context` fails.
    /// `init` must throw and free what it allocated once (twice aborts the process: a double free).
    func testCreationFailureThrowsAndFreesOnce() throws {
        var limit = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit), 0)
        defer { XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit), 0, "limit restored") }
        // The lowest free descriptor number: with the soft limit there, every open() fails with EMFILE.
        let lowestFree = dup(0)
        XCTAssertGreaterThanOrEqual(lowestFree, 0)
        close(lowestFree)
        var exhausted = limit
        exhausted.rlim_cur = rlim_t(lowestFree)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &exhausted), 0)

        XCTAssertThrowsError(try ClientContext()) { error in
            XCTAssertTrue("\(error)".contains("cannot create"), "\(error)")
        }
    }

    /// Dropping the last reference to a context that was never shut down closes its connections and
    /// frees it (its deinit stops the service thread and waits for it). Threads are not counted by name:
    /// under ThreadSanitizer /proc does not show the name the thread gives itself.
    func testDroppedContextShutsDownAndIsFreed() throws {
        let server = try LiveServer(runners: [GateRunner()])
        defer { server.stop() }
        weak var dropped: ClientContext?
        do {
            let context = try ClientContext()
            dropped = context
            let client = try server.client(context: context)
            client.waitFor("snapshot") { $0.type == "snapshot" }
            XCTAssertEqual(try Self.serverConnections(server), 1)
        }
        XCTAssertTrue(poll(timeout: 10) { dropped == nil }, "the context was freed")
        XCTAssertTrue(poll(timeout: 10) { (try? Self.serverConnections(server)) == 0 }, "its connection was closed")
    }

    private static func serverConnections(_ server: LiveServer) throws -> Int64? {
        try JSONParser.parse(RawSocket.http(port: server.port, path: "/healthz").body)["connections"]?.intValue
    }
}
