/// Why a jobs file cannot be used: one line naming the file, the kind (when there is one) and the
/// problem. `herald serve` prints it and exits with status 2; nothing starts half-configured.
public struct JobsFileError: Error, Equatable, CustomStringConvertible {
    public let file: String
    public let kind: String?
    public let problem: String

    public var description: String {
        kind.map { "\(file): kind \"\($0)\": \(problem)" } ?? "\(file): \(problem)"
    }

    /// A problem found while reading one part of the file, before the file and kind are attached.
    struct Problem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
