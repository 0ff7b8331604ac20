/// Where a Redis server is: `redis://HOST[:PORT][/DB]` (port 6379 and database 0 by default; an IPv6
/// host goes in brackets, `redis://[::1]:6379`). A plain value; any thread.
///
/// No user name, password, TLS (`rediss://`) or query options: this client does not send AUTH, so
/// such a URL is refused with a `RedisError.badURL` that says so rather than connecting without them.
public struct RedisAddress: Sendable, Equatable, CustomStringConvertible {
    public static let defaultPort = 6379

    public let host: String
    public let port: Int
    public let database: Int

    public init(host: String, port: Int = Self.defaultPort, database: Int = 0) throws(RedisError) {
        if let problem = Self.problem(host: host, port: port, database: database) {
            throw .badURL("\(host):\(port)/\(database)", reason: problem)
        }
        self.host = host
        self.port = port
        self.database = database
    }

    /// Parses `redis://HOST[:PORT][/DB]`.
    public init(_ url: String) throws(RedisError) {
        func bad(_ reason: String) -> RedisError { .badURL(url, reason: reason) }
        guard url.hasPrefix("redis://") else {
            throw bad(url.hasPrefix("rediss://") ? "TLS (rediss://) is not supported" : "expected redis://HOST:PORT[/DB]")
        }
        let rest = url.dropFirst("redis://".count)
        if rest.contains("@") { throw bad("a user name or password is not supported by this version (it sends no AUTH)") }
        if rest.contains(where: { $0 == "?" || $0 == "#" }) { throw bad("options (?…) are not supported") }
        let authority = rest.prefix(while: { $0 != "/" })
        let path = rest.dropFirst(authority.count).dropFirst()
        guard path.count <= 10, path.allSatisfy(Self.isDigit), let database = path.isEmpty ? 0 : Int(path) else {
            throw bad("the database after / must be a number from 0")
        }
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad("an IPv6 host needs its closing ]") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("expected :PORT after ]") }
                portText = after.dropFirst()
            }
            guard host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), host.contains(":") else {
                throw bad("[\(host)] is not an IPv6 address")
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
            if portText?.contains(":") == true { throw bad("an IPv6 host goes in brackets: redis://[::1]:6379") }
        }
        if host.isEmpty { throw bad("the host is missing") }
        var port = Self.defaultPort
        if let portText {
            guard portText.count <= 5, portText.allSatisfy(Self.isDigit), let number = Int(portText) else {
                throw bad("the port must be a number from 1 to 65535")
            }
            port = number
        }
        if let problem = Self.problem(host: String(host), port: port, database: database) { throw bad(problem) }
        self.host = String(host)
        self.port = port
        self.database = database
    }

    /// `HOST:PORT` (`[HOST]:PORT` for IPv6), for messages.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public var description: String { "redis://\(endpoint)/\(database)" }

    private static func isDigit(_ character: Character) -> Bool { ("0"..."9").contains(character) }

    /// What is wrong with these parts, or nil.
    private static func problem(host: String, port: Int, database: Int) -> String? {
        if host.isEmpty || !host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && !"/@?#[]".utf8.contains($0) }) {
            return "the host must be a name or an IP address"
        }
        if !(1...65_535).contains(port) { return "the port must be a number from 1 to 65535" }
        if !(0...Int(Int32.max)).contains(database) { return "the database must be a number from 0 to \(Int32.max)" }
        return nil
    }
}
