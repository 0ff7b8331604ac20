/// What `CatchUpPlanner` decided: the missed occurrences to fire now, oldest first, whether older
/// ones were left out by the cap, and the next occurrence after now. A plain value; any thread.
public struct CatchUpPlan: Sendable, Equatable {
    /// Epoch seconds of the occurrences to fire now, oldest first.
    public var fire: [Int64]
    /// Missed occurrences older than `fire` exist that the policy or the cap leaves out.
    public var leftOut: Bool
    /// The first occurrence after now: when the schedule fires next in the ordinary way.
    public var next: Int64?

    public init(fire: [Int64], leftOut: Bool, next: Int64?) {
        self.fire = fire
        self.leftOut = leftOut
        self.next = next
    }
}
