/// Which jobs an identity reaches. `nil` for a dimension means "no limit on it"; a job is in scope
/// when it passes both dimensions. A share link's scope is one job; a JWT or key may name kinds.
public struct AccessScope: Sendable, Hashable {
    /// Job kinds this identity may see and act on; nil: every kind.
    public var kinds: Set<String>?
    /// Job ids (as their decimal text) this identity may see and act on; nil: every job.
    public var jobs: Set<String>?

    public init(kinds: Set<String>? = nil, jobs: Set<String>? = nil) {
        self.kinds = kinds
        self.jobs = jobs
    }

    public static let everything = AccessScope()

    /// True when no dimension is limited: such a stream has no holes.
    public var isUnlimited: Bool { kinds == nil && jobs == nil }

    public func contains(kind: String, job: String) -> Bool {
        if let kinds, !kinds.contains(kind) { return false }
        if let jobs, !jobs.contains(job) { return false }
        return true
    }

    /// Whether starting a job of `kind` stays inside this scope (a scope limited to job ids allows no
    /// starts: the new job's id is not among them).
    public func allowsStarting(kind: String) -> Bool {
        if jobs != nil { return false }
        if let kinds, !kinds.contains(kind) { return false }
        return true
    }
}
