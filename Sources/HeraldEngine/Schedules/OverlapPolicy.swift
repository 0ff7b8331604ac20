/// What a schedule does when it comes due while its previous job is still queued or running
/// (the jobs file's `"overlap"`; the firing itself comes with the server side of schedules).
public enum OverlapPolicy: String, Sendable, CaseIterable {
    /// This occurrence is not started (the default).
    case skip
    /// It is started and waits for the kind's concurrency like any start.
    case queue
    /// The running one is cancelled and this one started.
    case replace
}
