/// One headline of the news feed.
public struct NewsItem: Sendable, Hashable {
    public let id: String
    /// Milliseconds since the Unix epoch.
    public let time: Int64
    public let headline: String

    public init(id: String, time: Int64, headline: String) {
        self.id = id
        self.time = time
        self.headline = headline
    }

    public var json: JSONValue {
        ["id": .string(id), "time": .int(time), "headline": .string(headline)]
    }

    /// The inverse of `json`; refuses, naming the field, anything else.
    public init(decoding value: JSONValue, at path: String = "item") throws(EngineError) {
        let fields = try JSONFields(value, at: path)
        self.init(id: try fields.string("id"), time: try fields.int("time"), headline: try fields.string("headline"))
    }
}
