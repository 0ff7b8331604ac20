/// One headline of the news feed.
public struct NewsItem: Sendable, Hashable {
    public let id: String
    /// Milliseconds since the Unix epoch.
    public let time: Int64
    public let headline: String

    public var json: JSONValue {
        ["id": .string(id), "time": .int(time), "headline": .string(headline)]
    }
}
