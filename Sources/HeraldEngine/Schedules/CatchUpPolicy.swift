/// Which occurrences a schedule fires for the time the server was down or the schedule paused
/// (the jobs file's `"catchUp"`; `CatchUpPlanner` works them out).
public enum CatchUpPolicy: String, Sendable, CaseIterable {
    /// None: the schedule goes on with its next occurrence.
    case none
    /// The latest missed occurrence only (the default).
    case one
    /// Every missed occurrence, oldest first, but at most `catchUpLimit` (the latest ones).
    case all
}
