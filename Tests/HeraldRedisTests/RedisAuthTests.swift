import HeraldRedis
import HeraldTestSupport
import XCTest

/// Logging in (`AUTH`) on a real redis-server that wants a password (`requirepass`) and has an ACL
/// user: every connection logs in before anything else, including one made after Redis restarts;
/// a wrong login is an `.authentication` error that names the server and the user, never the password.
final class RedisAuthTests: XCTestCase {
    private static let defaultPassword = "default pw"
    private static let alicePassword = "al1ce:s3cret"

    private func protectedRedis() throws -> RedisServerProcess {
        try startRedis(configuration: [
            "--requirepass", Self.defaultPassword, "--user", "alice", "on", ">\(Self.alicePassword)", "~*", "&*", "+@all",
        ])
    }

    private func address(_ server: RedisServerProcess, user: String?, password: String?, database: Int = 0) throws -> RedisAddress {
        try RedisAddress(host: "127.0.0.1", port: server.port, database: database, user: user, password: password)
    }

    func testAnACLUserAndTheDefaultUserLogInAndSelectTheirDatabase() throws {
        let server = try protectedRedis()
        let alice = try RedisConnection(address: try address(server, user: "alice", password: Self.alicePassword, database: 1))
        XCTAssertEqual(try alice.command("SET", "who", "alice"), .status("OK"))
        XCTAssertEqual(try alice.command("ACL", "WHOAMI").string, "alice")
        let byDefault = try RedisConnection(address: try address(server, user: nil, password: Self.defaultPassword, database: 1))
        XCTAssertEqual(try byDefault.command("ACL", "WHOAMI").string, "default")
        XCTAssertEqual(try byDefault.command("GET", "who").string, "alice", "both selected database 1")
    }

    func testEveryNewConnectionLogsInAgainAfterARestart() throws {
        let server = try protectedRedis()
        let address = try address(server, user: "alice", password: Self.alicePassword)
        let before = try RedisConnection(address: address)
        XCTAssertEqual(try before.command("PING"), .status("PONG"))
        try server.restart()
        XCTAssertThrowsError(try before.command("PING"), "the old connection died with the server")
        let after = try RedisConnection(address: address)
        XCTAssertEqual(try after.command("ACL", "WHOAMI").string, "alice")
    }

    func testAWrongLoginIsAnAuthenticationErrorThatNeverShowsThePassword() throws {
        let server = try protectedRedis()
        for (user, password) in [("alice", "wrong-hunter2"), (nil, "wrong-hunter2")] as [(String?, String)] {
            XCTAssertThrowsError(try RedisConnection(address: try address(server, user: user, password: password))) { error in
                guard case .authentication(_, let message) = error as? RedisError else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains("WRONGPASS"), message)
                let shown = "\(error)"
                XCTAssertTrue(shown.contains("127.0.0.1:\(server.port)"), shown)
                if let user { XCTAssertTrue(shown.contains("user \(user)"), shown) }
                XCTAssertFalse(shown.contains("hunter2"), shown)
                XCTAssertTrue((error as? RedisError)?.isConnectionLost == true, "retried like a server that is down")
            }
        }
    }

    func testNoPasswordWhereOneIsWantedIsNamedNOAUTH() throws {
        let server = try protectedRedis()
        XCTAssertThrowsError(try RedisConnection(address: try address(server, user: nil, password: nil, database: 1))) { error in
            guard case .authentication(_, let message) = error as? RedisError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("NOAUTH"), message)
        }
        let connection = try RedisConnection(address: try address(server, user: nil, password: nil))
        XCTAssertEqual(try connection.command("PING").errorMessage?.hasPrefix("NOAUTH"), true)
    }
}
