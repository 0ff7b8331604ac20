import HeraldRedis
import HeraldTestSupport
import XCTest

final class RedisReplyTests: XCTestCase {
    func testConveniences() {
        XCTAssertEqual(RedisReply.status("OK").string, "OK")
        XCTAssertEqual(RedisReply.bulk(Array("hé".utf8)).string, "hé")
        XCTAssertNil(RedisReply.bulk([0xff, 0xfe]).string, "not UTF-8: no string, but the bytes")
        XCTAssertEqual(RedisReply.bulk([0xff, 0xfe]).bytes, [0xff, 0xfe])
        XCTAssertEqual(RedisReply.integer(-7).integer, -7)
        XCTAssertNil(RedisReply.bulk(Array("7".utf8)).integer)
        XCTAssertEqual(RedisReply.array([.null]).array, [.null])
        XCTAssertTrue(RedisReply.null.isNull)
        XCTAssertFalse(RedisReply.bulk([]).isNull, "an empty string is not null")
        XCTAssertTrue(RedisReply.error("ERR no").isError)
        XCTAssertEqual(RedisReply.error("ERR no").errorMessage, "ERR no")
        XCTAssertNil(RedisReply.error("ERR no").string, "an error is not a string")
        XCTAssertFalse(RedisReply.status("OK").isError)
    }

    func testWhichErrorsMeanTheConnectionIsDead() throws {
        let address = try RedisAddress(host: "127.0.0.1")
        let dead: [RedisError] = [
            .refused(address), .io(address, message: "reset"), .eof(address), .timeout(address, seconds: 1),
            .protocolError(address, message: "x"), .closed(address),
        ]
        for error in dead {
            XCTAssertTrue(error.isConnectionLost, "\(error)")
            XCTAssertTrue(error.description.contains("127.0.0.1:6379"), "names the server: \(error)")
        }
        for error in [RedisError.server("ERR"), .invalidArgument("x"), .badURL("u", reason: "r")] {
            XCTAssertFalse(error.isConnectionLost, "\(error)")
        }
    }
}
