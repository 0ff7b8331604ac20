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
}
