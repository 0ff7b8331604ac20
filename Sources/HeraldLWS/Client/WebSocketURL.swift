/// A `ws://host:port/path` URL taken apart for libwebsockets' client. (`wss:` is not supported by
/// the built-in client: put TLS in front with a proxy, or use the server's own TLS for browsers.)
public struct WebSocketURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// Path and query, starting with `/`.
    public var path: String

    public init(host: String, port: Int, path: String) {
        self.host = host
        self.port = port
        self.path = path
    }

    public init?(_ text: String) {
        var rest = Substring(text)
        if rest.hasPrefix("ws://") {
            rest = rest.dropFirst(5)
        } else if rest.hasPrefix("http://") {
            rest = rest.dropFirst(7)
        } else {
            return nil
        }
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
            port = 80
        }
        guard !host.isEmpty else { return nil }
        self.path = path.isEmpty ? "/ws" : String(path)
    }

    public var description: String { "ws://\(host):\(port)\(path)" }
}
