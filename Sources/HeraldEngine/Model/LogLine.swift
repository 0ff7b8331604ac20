/// One line of a command job's output, and which stream it came from. A value; crosses threads.
public struct LogLine: Sendable, Hashable {
    public enum Stream: String, Sendable {
        case stdout, stderr
    }

    public let stream: Stream
    public let text: String

    public init(stream: Stream, text: String) {
        self.stream = stream
        self.text = text
    }

    public var json: JSONValue { ["stream": .string(stream.rawValue), "text": .string(text)] }

    /// The inverse of `json`; refuses, naming the field, anything else.
    public init(decoding value: JSONValue, at path: String = "line") throws(EngineError) {
        let fields = try JSONFields(value, at: path)
        let stream = try fields.required("stream", "\"stdout\" or \"stderr\"") { $0.stringValue.flatMap(Stream.init(rawValue:)) }
        self.init(stream: stream, text: try fields.string("text"))
    }
}
