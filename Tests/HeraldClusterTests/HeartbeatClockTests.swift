import HeraldRedis
import HeraldTestSupport
import XCTest

@testable import HeraldCluster

/// Nodes' heartbeats are Redis's time, written and read against it (`RenewScript`,
/// `ForgetNodeScript`, `secondsSinceHeard`): a node's own wall clock, which NTP or an operator may
/// step, never says whether another node is alive. On a real redis-server.
final class HeartbeatClockTests: XCTestCase {
    private let keys = ClusterKeys()

    func testARenewedNodeIsHeardNowByRedisTime() throws {
        let redis = try startRedis()
        let connection = try RedisConnection(address: redis.address)
        _ = try connection.evaluate(RenewScript(keys: .init(keys), args: .init(node: "n1", wantsNews: false, leaseMilliseconds: 2000)))
        let written = try XCTUnwrap(connection.command("HGET", keys.nodes, "n1").string.flatMap { Int64($0) })
        let redisNow = try connection.serverMilliseconds()
        XCTAssertLessThanOrEqual(written, redisNow)
        XCTAssertGreaterThan(written, redisNow - 60_000, "the heartbeat is Redis's time now")
        let age = try connection.secondsSinceHeard(from: "n1", keys: keys)
        XCTAssertGreaterThanOrEqual(age, 0)
        XCTAssertLessThan(age, 60)
        XCTAssertEqual(try connection.secondsSinceHeard(from: "n2", keys: keys), .infinity, "never heard")
    }

    /// Heartbeats an hour behind and an hour ahead of Redis's time: only the one Redis has not
    /// heard for longer than the timeout is forgotten.
    func testANodeIsForgottenByHowLongRedisHasNotHeardIt() throws {
        let redis = try startRedis()
        let connection = try RedisConnection(address: redis.address)
        _ = try connection.command("SET", keys.epoch, "e")
        let redisNow = try connection.serverMilliseconds()
        _ = try connection.command("HSET", keys.nodes, "quiet", String(redisNow - 3_600_000), "ahead", String(redisNow + 3_600_000))
        func forget(_ node: String) throws -> Int64? {
            try connection.evaluate(
                ForgetNodeScript(
                    keys: .init(keys), args: .init(node: node, timeoutMilliseconds: 5_000, epoch: "e", encoding: [], maxLength: 10))
            ).integer
        }
        XCTAssertEqual(try forget("quiet"), 1, "not heard for an hour by Redis's time")
        XCTAssertEqual(try forget("ahead"), 0)
        XCTAssertNil(try connection.command("HGET", keys.nodes, "quiet").string)
    }
}
