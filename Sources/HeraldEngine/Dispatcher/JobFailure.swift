/// A job that failed, with words for the person who started it.
public struct JobFailure: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
