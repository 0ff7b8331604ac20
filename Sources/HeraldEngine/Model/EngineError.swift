/// An error a client caused or must be told about: a code from the protocol and words for a person.
public struct EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: ErrorCode
    public let message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func badRequest(field: String, _ problem: String) -> EngineError {
        EngineError(.badRequest, "\(field): \(problem)")
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
