import HeraldRedis
import HeraldTestSupport
import XCTest

/// Commands against a real redis-server: every reply type, binary safety, pipelines, databases and
/// what a caller does wrong.
final class RedisConnectionTests: XCTestCase {
    func testEveryReplyType() throws {
        let redis = try RedisConnection(address: try startRedis().address)
        XCTAssertEqual(try redis.command("PING"), .status("PONG"))
        XCTAssertEqual(try redis.command("SET", "name", "herald"), .status("OK"))
        XCTAssertEqual(try redis.command("GET", "name"), .bulk(Array("herald".utf8)))
        XCTAssertEqual(try redis.command("GET", "missing"), .null)
        XCTAssertEqual(try redis.command("INCRBY", "count", "-5"), .integer(-5))
        XCTAssertEqual(try redis.command(["MGET", "name", "missing"]), .array([.bulk(Array("herald".utf8)), .null]))
        XCTAssertEqual(try redis.command("LRANGE", "nothing", "0", "-1"), .array([]))
        let unknown = try redis.command("NO-SUCH-COMMAND", "x")
        XCTAssertTrue(unknown.errorMessage?.hasPrefix("ERR unknown command") == true, "\(unknown)")
        XCTAssertEqual(try redis.command("GET", "name").string, "herald", "an error reply leaves the connection usable")
        XCTAssertFalse(redis.isBroken)
    }

    func testValuesAndKeysAreBinarySafe() throws {
        let redis = try RedisConnection(address: try startRedis().address)
        let key: [UInt8] = [0x6b, 0x00, 0xff]
        let value: [UInt8] = [0x00, 0xff, 0x0d, 0x0a, 0x00, 0x24, 0x2a, 0xfe]
        XCTAssertEqual(try redis.command([Array("SET".utf8), key, value]), .status("OK"))
        XCTAssertEqual(try redis.command([Array("GET".utf8), key]), .bulk(value))
        XCTAssertEqual(try redis.command([Array("GET".utf8), [0x6b]]), .null, "the key was not cut at its NUL")
        XCTAssertEqual(try redis.command([Array("SET".utf8), [], []]), .status("OK"), "empty words are words")
        XCTAssertEqual(try redis.command([Array("GET".utf8), []]), .bulk([]))
        let large = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        XCTAssertEqual(try redis.command([Array("SET".utf8), Array("large".utf8), large]), .status("OK"))
        XCTAssertEqual(try redis.command("GET", "large"), .bulk(large))
    }

    func testPipelineOfAThousandInOrder() throws {
        let redis = try RedisConnection(address: try startRedis().address)
        let commands = (0..<1_000).map { _ in [Array("INCR".utf8), Array("counter".utf8)] }
        XCTAssertEqual(try redis.pipeline(commands), (1...1_000).map { RedisReply.integer(Int64($0)) })
        let mixed = try redis.pipeline([[Array("GET".utf8), Array("counter".utf8)], [Array("BAD".utf8)], [Array("PING".utf8)]])
        XCTAssertEqual(mixed.count, 3)
        XCTAssertEqual(mixed[0].string, "1000")
        XCTAssertTrue(mixed[1].isError, "an error reply takes its place in the pipeline")
        XCTAssertEqual(mixed[2], .status("PONG"))
        XCTAssertEqual(try redis.pipeline([]), [])
    }

    func testSelectsTheDatabaseOfTheAddress() throws {
        let server = try startRedis()
        let one = try RedisConnection(address: try RedisAddress("\(server.url)/1"))
        let zero = try RedisConnection(address: server.address)
        XCTAssertEqual(try one.command("SET", "where", "one"), .status("OK"))
        XCTAssertEqual(try zero.command("GET", "where"), .null)
        XCTAssertEqual(try one.command("GET", "where").string, "one")
        XCTAssertThrowsError(try RedisConnection(address: try RedisAddress("\(server.url)/99"))) { error in
            guard case .server(let message) = error as? RedisError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("SELECT 99: ERR"), message)
        }
    }

    func testBadCallsAreErrorsAndTheConnectionLives() throws {
        let server = try startRedis()
        let redis = try RedisConnection(address: server.address)
        XCTAssertThrowsError(try redis.command([[UInt8]]())) {
            XCTAssertEqual($0 as? RedisError, .invalidArgument("a command needs at least its name"))
        }
        XCTAssertThrowsError(try redis.pipeline([[Array("PING".utf8)], []])) {
            XCTAssertFalse(($0 as? RedisError)?.isConnectionLost ?? true)
        }
        for seconds in [0, -1, Double.nan, .infinity] {
            XCTAssertThrowsError(try redis.setCommandTimeout(seconds)) { error in
                guard case .invalidArgument = error as? RedisError else { return XCTFail("\(error)") }
            }
            XCTAssertThrowsError(try RedisConnection(address: server.address, commandTimeout: seconds))
        }
        XCTAssertEqual(redis.commandTimeout, 5)
        XCTAssertEqual(try redis.command("PING"), .status("PONG"))
        XCTAssertFalse(redis.isBroken)
    }

    func testCloseIsIdempotentAndLaterCallsThrowClosed() throws {
        let server = try startRedis()
        let redis = try RedisConnection(address: server.address)
        redis.close()
        redis.close()
        XCTAssertThrowsError(try redis.command("PING")) { XCTAssertEqual($0 as? RedisError, .closed(server.address)) }
        XCTAssertThrowsError(try redis.pipeline([[Array("PING".utf8)]])) { XCTAssertEqual($0 as? RedisError, .closed(server.address)) }
        XCTAssertThrowsError(try redis.setCommandTimeout(1)) { XCTAssertEqual($0 as? RedisError, .closed(server.address)) }
        XCTAssertFalse(redis.isBroken, "closed on purpose, not broken")
    }

    func testClosingReleasesTheServerSideConnection() throws {
        let server = try startRedis()
        let observer = try RedisConnection(address: server.address)
        func clients() throws -> Int { try observer.command("CLIENT", "LIST").string?.split(separator: "\n").count ?? -1 }
        for _ in 0..<20 {
            let redis = try RedisConnection(address: server.address)
            XCTAssertEqual(try redis.command("PING"), .status("PONG"))
        }
        let closed = try RedisConnection(address: server.address)
        closed.close()
        XCTAssertTrue(poll(timeout: 20) { (try? clients()) == 1 }, "only the observer is left: \((try? clients()) ?? -1)")
    }
}
