import Foundation
import HeraldRedis
import HeraldTestSupport
import XCTest

/// XADD and XREAD BLOCK, the way the cluster reads its event stream: the command timeout (3 s) is
/// longer than the block time (1 s).
final class RedisStreamTests: XCTestCase {
    func testBlockingReadReturnsEntriesAddedMeanwhile() throws {
        let server = try startRedis()
        let address = server.address
        let reader = try RedisConnection(address: address, commandTimeout: 3)
        XCTAssertEqual(try reader.command("XADD", "events", "1-1", "n", "first").string, "1-1")

        // Another thread adds an entry once the reader is blocked (the server says so).
        let added = Locked<Result<String, RedisError>?>(nil)
        let writer = Thread {
            let outcome = Result { () throws(RedisError) -> String in
                let redis = try RedisConnection(address: address)
                _ = poll(timeout: 20) { (try? redis.command("INFO", "clients").string?.contains("blocked_clients:1")) == true }
                return try redis.command([Array("XADD".utf8), Array("events".utf8), Array("2-1".utf8), Array("n".utf8), [0x00, 0xff]])
                    .string ?? ""
            }
            added.withLock { $0 = outcome }
        }
        writer.start()
        // BLOCK is 1 s: read again until the entry comes (a busy machine may start the writer late).
        var reply = RedisReply.null
        let deadline = Date().addingTimeInterval(30)
        while reply == .null, Date() < deadline {
            reply = try reader.command("XREAD", "COUNT", "10", "BLOCK", "1000", "STREAMS", "events", "1-1")
        }
        let entry = RedisReply.array([.bulk(Array("2-1".utf8)), .array([.bulk(Array("n".utf8)), .bulk([0x00, 0xff])])])
        XCTAssertEqual(reply, .array([.array([.bulk(Array("events".utf8)), .array([entry])])]))
        XCTAssertTrue(poll(timeout: 20) { added.value != nil })
        XCTAssertEqual(try added.value?.get(), "2-1")
    }

    func testBlockingReadReturnsNullAfterTheBlockTime() throws {
        let redis = try RedisConnection(address: try startRedis().address, commandTimeout: 3)
        XCTAssertEqual(try redis.command("XADD", "events", "*", "n", "1").isError, false)
        let started = Date()
        XCTAssertEqual(try redis.command("XREAD", "BLOCK", "200", "STREAMS", "events", "$"), .null)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.15, "it did block")
        XCTAssertFalse(redis.isBroken, "a block shorter than the command timeout leaves the connection good")
        XCTAssertEqual(try redis.command("XLEN", "events"), .integer(1))
    }

    func testABlockLongerThanTheCommandTimeoutKillsTheConnection() throws {
        let server = try startRedis()
        let redis = try RedisConnection(address: server.address, commandTimeout: 0.3)
        XCTAssertThrowsError(try redis.command("XREAD", "BLOCK", "5000", "STREAMS", "events", "$")) { error in
            XCTAssertEqual(error as? RedisError, .timeout(server.address, seconds: 0.3))
        }
        XCTAssertTrue(redis.isBroken, "why the command timeout must be longer than the block")
    }
}
