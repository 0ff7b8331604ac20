/// A Lua script run with `RedisConnection.evaluate`: a name for messages and its source. A plain
/// value; any thread. Define each script once (a `static let`); connections cache its SHA1.
public struct RedisScript: Sendable, Hashable {
    public let name: String
    public let source: String

    public init(name: String, source: String) {
        self.name = name
        self.source = source
    }
}
