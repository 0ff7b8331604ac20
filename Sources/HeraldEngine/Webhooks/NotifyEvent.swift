/// How a job ended, as a `notify` entry's `"on"` names it (docs/webhooks.md).
///
/// `timedOut` is a job that `failed` because it ran past its kind's `timeout`: its error begins
/// with "timed out after " (what `CommandRunner` and remote workers' timeouts write). A timed-out job
/// is both: `"on": ["failed"]` hears of it, and so does `"on": ["timedOut"]`; its delivery's `type`
/// is `job.timedOut`. Interrupted jobs (found unfinished after a crash) are not notified.
public enum NotifyEvent: String, Sendable, CaseIterable, Hashable {
    case succeeded, failed, cancelled, timedOut

    /// The error's beginning that marks a timeout.
    static let timeoutPrefix = "timed out after "

    /// What a job's record says happened, the most precise word: nil while the job has not ended
    /// (or was interrupted).
    public static func of(_ record: JobRecord) -> NotifyEvent? {
        switch record.state {
        case .succeeded: return .succeeded
        case .cancelled: return .cancelled
        case .failed: return record.error?.hasPrefix(timeoutPrefix) == true ? .timedOut : .failed
        case .queued, .waiting, .running, .interrupted: return nil
        }
    }

    /// Whether an entry listening for `self` hears of a job that ended with `event`.
    func hears(_ event: NotifyEvent) -> Bool { self == event || (self == .failed && event == .timedOut) }
}
