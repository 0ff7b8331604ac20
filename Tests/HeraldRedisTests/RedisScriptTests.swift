import HeraldRedis
import HeraldTestSupport
import XCTest

/// EVALSHA with the SHA1 cached per connection, loaded again when Redis forgot the script.
final class RedisScriptTests: XCTestCase {
    static let append = RedisScript(
        name: "append",
        source: "redis.call('RPUSH', KEYS[1], ARGV[1]); return redis.call('LLEN', KEYS[1])")

    func testRunsAndSurvivesScriptFlush() throws {
        let server = try startRedis()
        let redis = try RedisConnection(address: server.address)
        let other = try RedisConnection(address: server.address)
        XCTAssertEqual(try redis.evaluate(Self.append, keys: ["list"], args: ["a"]), .integer(1))
        XCTAssertEqual(try redis.evaluate(Self.append, keys: [Array("list".utf8)], args: [[0x00, 0xff]]), .integer(2))
        XCTAssertEqual(try redis.command("LINDEX", "list", "1"), .bulk([0x00, 0xff]))
        let hash = try XCTUnwrap(try redis.command("SCRIPT", "LOAD", Self.append.source).string)

        XCTAssertEqual(try other.command("SCRIPT", "FLUSH"), .status("OK"))
        XCTAssertEqual(try redis.command("SCRIPT", "EXISTS", hash), .array([.integer(0)]))
        XCTAssertEqual(try redis.evaluate(Self.append, keys: ["list"], args: ["c"]), .integer(3), "NOSCRIPT: loaded and run again")
        XCTAssertEqual(try redis.command("SCRIPT", "EXISTS", hash), .array([.integer(1)]))
        XCTAssertEqual(try redis.command("LLEN", "list"), .integer(3), "run once, not twice")
    }

    func testRunsOnANewConnectionAfterARestart() throws {
        let server = try startRedis()
        XCTAssertEqual(try RedisConnection(address: server.address).evaluate(Self.append, keys: ["list"], args: ["a"]), .integer(1))
        try server.restart()
        let redis = try RedisConnection(address: server.address)
        XCTAssertEqual(try redis.evaluate(Self.append, keys: ["list"], args: ["b"]), .integer(1), "a fresh server without persistence")
    }

    func testScriptErrors() throws {
        let redis = try RedisConnection(address: try startRedis().address)
        let failing = RedisScript(name: "failing", source: "return redis.error_reply('MINE went wrong')")
        XCTAssertEqual(try redis.evaluate(failing), .error("MINE went wrong"), "the script's own error is a reply")
        let broken = RedisScript(name: "broken", source: "return (")
        XCTAssertThrowsError(try redis.evaluate(broken)) { error in
            guard case .server(let message) = error as? RedisError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("SCRIPT LOAD broken: ERR"), message)
        }
        XCTAssertEqual(try redis.evaluate(Self.append, keys: ["k"], args: ["v"]), .integer(1), "the connection still works")
    }
}
