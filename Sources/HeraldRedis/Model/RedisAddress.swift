/// Where a Redis server is and how to log in: `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]` (port 6379
/// and database 0 by default; an IPv6 host goes in brackets, `redis://[::1]:6379`; `%XX` escapes in
/// the user and password, e.g. `%40` for `@`). With a password every connection sends `AUTH` (with the
/// user: an ACL user; without: the default user, `requirepass`). A plain value; any thread.
///
/// **The password is never shown**: `description` and every `RedisError` leave it out (a bad URL is
/// quoted with `***` in its place), so it never reaches a log line, an error, a metric or `/healthz`.
/// No TLS (`rediss://`) or query options: such a URL is refused with a `RedisError.badURL`.
public struct RedisAddress: Sendable, Equatable, CustomStringConvertible {
    public static let defaultPort = 6379

    public let host: String
    public let port: Int
    public let database: Int
    /// The ACL user `AUTH` names; nil: the default user.
    public let user: String?
    /// What `AUTH` sends; nil: no `AUTH` (a user without a password is only a name, until
    /// `with(password:)` gives it one).
    public let password: String?

    public init(host: String, port: Int = Self.defaultPort, database: Int = 0, user: String? = nil, password: String? = nil)
        throws(RedisError)
    {
        if let problem = Self.problem(host: host, port: port, database: database) {
            throw .badURL("\(host):\(port)/\(database)", reason: problem)
        }
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
    }

    /// The same server with `password` (`--redis-password-file`): with the URL's user, if any.
    public func with(password: String) -> RedisAddress {
        // Every part was checked when this address was made; the password is any text.
        try! RedisAddress(host: host, port: port, database: database, user: user, password: password)
    }

    /// Parses `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`.
    public init(_ url: String) throws(RedisError) {
        func bad(_ reason: String) -> RedisError { .badURL(Self.redacted(url), reason: reason) }
        guard url.hasPrefix("redis://") else {
            throw bad(url.hasPrefix("rediss://") ? "TLS (rediss://) is not supported" : "expected redis://HOST:PORT[/DB]")
        }
        var rest = url.dropFirst("redis://".count)
        var user: String?
        var password: String?
        // The last @ ends the credentials: an @ in a password may be left unescaped.
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            // USER@ alone: the password comes from elsewhere (`with(password:)`, --redis-password-file).
            let colon = credentials.firstIndex(of: ":") ?? credentials.endIndex
            guard let name = Self.percentDecoded(credentials[..<colon]),
                let secret = Self.percentDecoded(colon == credentials.endIndex ? "" : credentials[credentials.index(after: colon)...])
            else { throw bad("a %-escape in the user or password is not %XX of UTF-8") }
            if colon != credentials.endIndex, secret.isEmpty { throw bad("the password after : is empty") }
            if name.isEmpty, secret.isEmpty { throw bad("nothing before @: give USER:PASSWORD@ or :PASSWORD@") }
            user = name.isEmpty ? nil : name
            password = secret.isEmpty ? nil : secret
        }
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
        self.user = user
        self.password = password
    }

    /// `HOST:PORT` (`[HOST]:PORT` for IPv6), for messages.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The URL without the password: `redis://USER:***@HOST:PORT/DB` (`redis://:***@…` for the default
    /// user, `redis://USER@…` for a user without one yet), `redis://HOST:PORT/DB` without either.
    public var description: String {
        let login = password == nil ? user.map { "\($0)@" } ?? "" : "\(user ?? ""):***@"
        return "redis://\(login)\(endpoint)/\(database)"
    }

    /// `url` with whatever stands between the scheme (`redis://`, `rediss://`) and the last `@` shown
    /// as `USER:***` (or `***`): for quoting a URL that could not be parsed.
    public static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let start = url[..<at].firstRange(of: "://")?.upperBound ?? url.startIndex
        let credentials = url[start..<at]
        let user = credentials.firstIndex(of: ":").map { String(credentials[..<$0]) + ":" } ?? ""
        return String(url[..<start]) + user + "***" + String(url[at...])
    }

    /// `text` with its `%XX` escapes decoded; nil when an escape is malformed or the bytes are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

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
