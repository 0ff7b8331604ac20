/// Why a public key could not be loaded: a sentence for the operator that names the problem (never
/// key material).
public struct PublicKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
