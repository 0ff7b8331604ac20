import Foundation
import HeraldRedis
import HeraldTestSupport
import XCTest

/// A Redis that restarted and is still loading its data answers every command `-LOADING …`: a
/// connection takes that as lost (callers reconnect after a backoff), never as a reply, so a key
/// not loaded yet is never read as missing.
final class RedisLoadingTests: XCTestCase {
    /// A server on 127.0.0.1 that answers each command of what it reads with Redis's LOADING error.
    private final class LoadingServer: @unchecked Sendable {
        // @unchecked Sendable: `listener` is set in init and only closed by `stop`, on the test's thread.
        let port: Int
        private let listener: Int32

        init() throws {
            (listener, port) = try Loopback.boundSocket()
            guard listen(listener, 4) == 0 else { throw RedisServerProcess.Failure(description: "cannot listen") }
            let listener = listener
            Thread.detachNewThread {
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { return }
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let count = recv(client, &buffer, buffer.count, 0)
                        guard count > 0 else { break }
                        // One reply per command: each command of a pipeline starts a line with `*`.
                        let commands = max(
                            1, buffer[..<count].split(separator: UInt8(ascii: "\n")).filter { $0.first == UInt8(ascii: "*") }.count)
                        let reply = Array(String(repeating: "-LOADING Redis is loading the dataset in memory\r\n", count: commands).utf8)
                        _ = send(client, reply, reply.count, Int32(MSG_NOSIGNAL))
                    }
                    close(client)
                }
            }
        }

        func stop() { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }
    }

    func testALoadingServersRefusalIsALostConnectionNotAReply() throws {
        let server = try LoadingServer()
        defer { server.stop() }
        let address = try RedisAddress(host: "127.0.0.1", port: server.port)
        let connection = try RedisConnection(address: address)
        XCTAssertThrowsError(try connection.command("GET", "epoch")) { error in
            XCTAssertEqual(error as? RedisError, .loading(address))
            XCTAssertTrue((error as? RedisError)?.isConnectionLost == true, "callers reconnect after a backoff")
        }
        XCTAssertTrue(connection.isBroken)
        let second = try RedisConnection(address: address)
        XCTAssertThrowsError(try second.pipeline([[Array("GET".utf8), Array("a".utf8)], [Array("GET".utf8), Array("b".utf8)]])) { error in
            XCTAssertEqual(error as? RedisError, .loading(address))
        }
    }
}
