/// Why a jobs file cannot be used: one line naming the file, the kind or schedule (when there is
/// one) and the problem. `herald serve` prints it and exits with status 2; nothing starts half-configured.
public struct JobsFileError: Error, Equatable, CustomStringConvertible {
    public let file: String
    public let kind: String?
    /// The schedule (the file's `"schedules"`) the problem is in.
    public let schedule: String?
    public let problem: String

    public init(file: String, kind: String?, schedule: String? = nil, problem: String) {
        self.file = file
        self.kind = kind
        self.schedule = schedule
        self.problem = problem
    }

    public var description: String {
        if let kind { return "\(file): kind \"\(kind)\": \(problem)" }
        if let schedule { return "\(file): schedule \"\(schedule)\": \(problem)" }
        return "\(file): \(problem)"
    }

    /// A problem found while reading one part of the file, before the file and kind are attached.
    struct Problem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
