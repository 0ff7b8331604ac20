/// Why the JWT keys could not be loaded: the flag, the file and the problem, in one sentence for the
/// operator (never a secret's bytes).
public struct JWTConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
