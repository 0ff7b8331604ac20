/// A WebSocket URL taken apart for libwebsockets' client: `ws://host:port/path` or, over TLS,
/// `wss://host:port/path`. A server's own address is accepted too: `http://` means `ws://` and
/// `https://` means `wss://`. The port defaults to 80 (443 with TLS) and the path to `/ws` (also for
/// a server address ending in `/`, as the first line of `herald serve` prints it).
public struct WebSocketURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// Path and query, starting with `/`.
    public var path: String
    /// `wss://`: the connection is TLS, and the server's certificate is checked.
    public var isSecure: Bool

    public init(host: String, port: Int, path: String, isSecure: Bool = false) {
        self.host = host
        self.port = port
        self.path = path
        self.isSecure = isSecure
    }

    public init?(_ text: String) {
        var rest = Substring(text)
        let schemes: [(prefix: String, isSecure: Bool)] = [("ws://", false), ("http://", false), ("wss://", true), ("https://", true)]
        guard let scheme = schemes.first(where: { rest.hasPrefix($0.prefix) }) else { return nil }
        rest = rest.dropFirst(scheme.prefix.count)
        isSecure = scheme.isSecure
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        let path = rest[slash...]
        guard !authority.isEmpty else { return nil }
        if let colon = authority.lastIndex(of: ":") {
            guard let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port) else { return nil }
            host = String(authority[..<colon])
            self.port = port
        } else {
            host = String(authority)
            port = isSecure ? 443 : 80
        }
        guard !host.isEmpty else { return nil }
        // The server's own address, as `herald serve` prints it (`http://host:port/`), means its stream.
        let isServerAddress = scheme.prefix.hasPrefix("http") && path == "/"
        self.path = path.isEmpty || isServerAddress ? "/ws" : String(path)
    }

    public var description: String { "\(isSecure ? "wss" : "ws")://\(host):\(port)\(path)" }
}
