import HeraldEngine
import HeraldRedis
import HeraldTestSupport
import XCTest

@testable import HeraldCluster

/// Requests to a node's control stream keep a minute of them (`ControlScript`), on a real redis-server.
final class ClusterControlTests: XCTestCase {
    func testARequestDropsThoseOlderThanAMinuteByRedisClockAndReadsBack() throws {
        let redis = try RedisServerProcess()
        let connection = try RedisConnection(address: redis.address)
        let keys = ClusterKeys()
        let stream = keys.control("n2")
        // Two requests from long ago (ids are milliseconds of Redis's clock), one from 30 s ago.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        XCTAssertNotNil(try connection.command(["XADD", stream, "1-0"] + ClusterControl.cancel(job: "j-old", by: "ann").fields).string)
        XCTAssertNotNil(try connection.command(["XADD", stream, "2-0"] + ClusterControl.cancel(job: "j-older", by: "ann").fields).string)
        XCTAssertNotNil(
            try connection.command(["XADD", stream, "\(now - 30_000)-0"] + ClusterControl.cancel(job: "j-recent", by: "ann").fields).string)
        let posted = try ClusterControl.page(job: "j-1", offset: 0, limit: 5, reply: "t").post(to: "n2", keys: keys, on: connection)
        XCTAssertNotNil(posted.string, "the new entry's id: \(posted)")
        let entries = try connection.command("XRANGE", stream, "-", "+").array ?? []
        let requests = entries.compactMap { entry in entry.array.flatMap { $0.count == 2 ? $0[1].array : nil }.flatMap(ClusterControl.init)
        }
        XCTAssertEqual(requests, [.cancel(job: "j-recent", by: "ann"), .page(job: "j-1", offset: 0, limit: 5, reply: "t")])
    }
}
