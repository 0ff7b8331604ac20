import Foundation
import HeraldRedis
import HeraldTestSupport
import XCTest

/// What a dead or hung server does to a connection. Bounds on time are generous: they catch a hang,
/// not a slow machine.
final class RedisFailureTests: XCTestCase {
    func testKilledServerBreaksTheConnectionAndANewOneWorksAfterARestart() throws {
        let server = try startRedis()
        let redis = try RedisConnection(address: server.address)
        XCTAssertEqual(try redis.command("PING"), .status("PONG"))
        server.kill()
        var first: RedisError?
        XCTAssertThrowsError(try redis.command("PING")) { first = $0 as? RedisError }
        switch first {
        case .eof(let address)?, .io(let address, _)?: XCTAssertEqual(address, server.address)
        default: XCTFail("an EOF or I/O error, not \(String(describing: first))")
        }
        XCTAssertTrue(first?.isConnectionLost == true)
        XCTAssertTrue(redis.isBroken)
        // Later calls throw the same error at once, without touching the freed context.
        XCTAssertThrowsError(try redis.command("PING")) { XCTAssertEqual($0 as? RedisError, first) }
        XCTAssertThrowsError(try redis.pipeline([[Array("PING".utf8)]])) { XCTAssertEqual($0 as? RedisError, first) }
        redis.close()

        try server.restart()
        let again = try RedisConnection(address: server.address)
        XCTAssertEqual(try again.command("PING"), .status("PONG"))
        XCTAssertTrue(redis.isBroken, "the old connection stays dead")
    }

    func testPipelineOnAKilledServerThrows() throws {
        let server = try startRedis()
        let redis = try RedisConnection(address: server.address)
        server.kill()
        XCTAssertThrowsError(try redis.pipeline((0..<100).map { _ in [Array("PING".utf8)] })) { error in
            XCTAssertTrue((error as? RedisError)?.isConnectionLost == true, "\(error)")
        }
        XCTAssertTrue(redis.isBroken)
    }

    func testConnectToNothingIsRefusedQuickly() throws {
        let address = try RedisAddress(host: "127.0.0.1", port: Loopback.freePort())
        let started = Date()
        XCTAssertThrowsError(try RedisConnection(address: address, connectTimeout: 20)) { error in
            XCTAssertEqual(error as? RedisError, .refused(address))
            XCTAssertTrue("\(error)".contains("127.0.0.1:\(address.port) refused the connection"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "refused at once, not after the connect timeout")
    }

    func testCommandTimeoutOnAPausedServer() throws {
        let server = try startRedis()
        let redis = try RedisConnection(address: server.address, commandTimeout: 5)
        try redis.setCommandTimeout(0.3)
        XCTAssertEqual(redis.commandTimeout, 0.3)
        server.pause()
        defer { server.resume() }
        let started = Date()
        XCTAssertThrowsError(try redis.command("PING")) { error in
            XCTAssertEqual(error as? RedisError, .timeout(server.address, seconds: 0.3))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "the timeout fired; the call did not hang")
        XCTAssertTrue(redis.isBroken, "a late PONG would be taken for the next reply: the connection is dead")
        server.resume()
        XCTAssertEqual(try RedisConnection(address: server.address).command("PING"), .status("PONG"))
    }

    func testConnectToAPausedServerThenTimesOut() throws {
        let server = try startRedis()
        server.pause()
        defer { server.resume() }
        // The kernel completes the connect for a stopped process; the first command waits in vain.
        let redis = try RedisConnection(address: server.address, connectTimeout: 5, commandTimeout: 0.3)
        XCTAssertThrowsError(try redis.command("PING")) { XCTAssertEqual($0 as? RedisError, .timeout(server.address, seconds: 0.3)) }
    }
}
