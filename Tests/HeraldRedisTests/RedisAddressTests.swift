import HeraldRedis
import HeraldTestSupport
import XCTest

final class RedisAddressTests: XCTestCase {
    func testParsesHostPortAndDatabase() throws {
        XCTAssertEqual(try RedisAddress("redis://10.0.0.5:6380/3"), try RedisAddress(host: "10.0.0.5", port: 6380, database: 3))
        XCTAssertEqual(try RedisAddress("redis://cache.internal"), try RedisAddress(host: "cache.internal", port: 6379, database: 0))
        XCTAssertEqual(try RedisAddress("redis://cache:7000"), try RedisAddress(host: "cache", port: 7000))
        XCTAssertEqual(try RedisAddress("redis://cache/2").database, 2)
        XCTAssertEqual(try RedisAddress("redis://cache:7000/").database, 0, "an empty database is 0")
    }

    func testIPv6InBrackets() throws {
        let address = try RedisAddress("redis://[::1]:6390/1")
        XCTAssertEqual(address.host, "::1")
        XCTAssertEqual(address.port, 6390)
        XCTAssertEqual(address.endpoint, "[::1]:6390")
        XCTAssertEqual(address.description, "redis://[::1]:6390/1")
        XCTAssertEqual(try RedisAddress("redis://[fe80::1]").port, 6379)
    }

    func testDescriptionRoundTrips() throws {
        let address = try RedisAddress("redis://127.0.0.1:7001/4")
        XCTAssertEqual(address.description, "redis://127.0.0.1:7001/4")
        XCTAssertEqual(try RedisAddress(address.description), address)
    }

    func testRefusesWhatItCannotUseWithTheReason() {
        let cases: [(String, String)] = [
            ("", "expected redis://"),
            ("http://cache:6379", "expected redis://"),
            ("cache:6379", "expected redis://"),
            ("rediss://cache:6379", "TLS"),
            ("redis://@cache:6379", "nothing before @"),
            ("redis://alice:@cache:6379", "the password after : is empty"),
            ("redis://alice:%zz@cache", "%-escape"),
            ("redis://cache:6379?timeout=1", "options"),
            ("redis://", "host is missing"),
            ("redis://:6379", "host is missing"),
            ("redis://cache:", "port must be a number from 1 to 65535"),
            ("redis://cache:0", "port must be a number from 1 to 65535"),
            ("redis://cache:65536", "port must be a number from 1 to 65535"),
            ("redis://cache:99999999999999999999", "port must be a number from 1 to 65535"),
            ("redis://cache:-1", "port must be a number from 1 to 65535"),
            ("redis://cache:http", "port must be a number from 1 to 65535"),
            ("redis://cache:6379/x", "database"),
            ("redis://cache:6379/-1", "database"),
            ("redis://cache:6379/1/2", "database"),
            ("redis://cache:6379/99999999999", "database"),
            ("redis://::1:6379", "IPv6 host goes in brackets"),
            ("redis://[::1", "closing ]"),
            ("redis://[::1]6379", "expected :PORT after ]"),
            ("redis://[cache]:6379", "not an IPv6 address"),
            ("redis://ca che:6379", "host must be a name or an IP address"),
        ]
        for (url, reason) in cases {
            XCTAssertThrowsError(try RedisAddress(url), url) { error in
                guard case .badURL(let shown, let why) = error as? RedisError else { return XCTFail("\(url): \(error)") }
                XCTAssertEqual(shown, RedisAddress.redacted(url), "quoted without a password")
                XCTAssertTrue(why.contains(reason), "\(url): \(why)")
                XCTAssertFalse((error as? RedisError)?.isConnectionLost ?? true)
                XCTAssertTrue("\(error)".hasPrefix("bad Redis URL \(RedisAddress.redacted(url)): "), "\(error)")
            }
        }
    }

    func testCredentialsAreReadAndNeverShown() throws {
        let acl = try RedisAddress("redis://alice:s3cr%40t:pw@cache:6380/2")
        XCTAssertEqual(acl.user, "alice")
        XCTAssertEqual(acl.password, "s3cr@t:pw", "%40 is @; a colon after the first is the password's")
        XCTAssertEqual(acl.database, 2)
        XCTAssertEqual(acl.description, "redis://alice:***@cache:6380/2")
        let legacy = try RedisAddress("redis://:p@ss@cache")
        XCTAssertNil(legacy.user, "no user: the default user (requirepass)")
        XCTAssertEqual(legacy.password, "p@ss", "the last @ ends the credentials")
        XCTAssertEqual(legacy.description, "redis://:***@cache:6379/0")
        XCTAssertEqual(try RedisAddress("redis://cache").with(password: "pw").description, "redis://:***@cache:6379/0")
        XCTAssertEqual(try RedisAddress("redis://bob:x@cache").with(password: "from-a-file").password, "from-a-file")
        XCTAssertEqual(try RedisAddress("redis://bob:x@cache").with(password: "from-a-file").user, "bob")
        let named = try RedisAddress("redis://bob@cache")
        XCTAssertEqual(named.user, "bob")
        XCTAssertNil(named.password, "a user alone: its password comes from a file")
        XCTAssertEqual(named.description, "redis://bob@cache:6379/0")
        XCTAssertEqual(named.with(password: "pw").description, "redis://bob:***@cache:6379/0")
    }

    func testABadURLIsQuotedWithoutItsPassword() {
        for url in [
            "redis://alice:hunter2@cache:99999", "rediss://alice:hunter2@cache", "redis://:hunter2@ca che/1", "redis://alice:hunter2@",
        ] {
            XCTAssertThrowsError(try RedisAddress(url), url) { error in
                XCTAssertFalse("\(error)".contains("hunter2"), "\(error)")
                XCTAssertTrue("\(error)".contains("***@"), "\(error)")
            }
        }
        XCTAssertEqual(RedisAddress.redacted("redis://alice:hunter2@cache/1"), "redis://alice:***@cache/1")
        XCTAssertEqual(RedisAddress.redacted("redis://cache/1"), "redis://cache/1")
    }

    func testComponentsAreChecked() {
        XCTAssertThrowsError(try RedisAddress(host: "", port: 6379))
        XCTAssertThrowsError(try RedisAddress(host: "cache", port: 70_000))
        XCTAssertThrowsError(try RedisAddress(host: "cache", database: -1))
        XCTAssertThrowsError(try RedisAddress(host: "a/b"))
    }
}
