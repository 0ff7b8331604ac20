/// A job's lifecycle. `apply` is the only way to move between states (`JobRecord.state` can only be
/// set through `JobRecord.move(to:)`, which calls it), so an invalid transition can never be stored:
/// it is refused where it is attempted. A record is made in a given state only when it is created
/// or read back from history.
///
///     queued ──▶ waiting ──▶ queued            (dependencies still running, then all succeeded)
///     queued ──▶ running ──▶ succeeded | failed | cancelled
///     running ──▶ queued                       (a failed attempt with attempts left: retried later)
///     queued | waiting ──▶ cancelled
///     queued | waiting | running ──▶ interrupted   (only when history is reloaded after a crash)
public enum JobState: String, Sendable, CaseIterable, Hashable {
    case queued, waiting, running, succeeded, failed, cancelled, interrupted

    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .cancelled, .interrupted: return true
        case .queued, .waiting, .running: return false
        }
    }

    public func canMove(to next: JobState) -> Bool {
        switch (self, next) {
        case (.queued, .waiting), (.queued, .running), (.queued, .cancelled),
            (.waiting, .queued), (.waiting, .cancelled),
            (.running, .succeeded), (.running, .failed), (.running, .cancelled), (.running, .queued),
            (.queued, .interrupted), (.waiting, .interrupted), (.running, .interrupted):
            return true
        default:
            return false
        }
    }

    public struct InvalidTransition: Error, Equatable, CustomStringConvertible {
        public let from: JobState
        public let to: JobState
        public var description: String { "a \(from.rawValue) job cannot become \(to.rawValue)" }
    }

    /// Returns the new state, or throws when the lifecycle forbids the move.
    public func apply(_ next: JobState) throws(InvalidTransition) -> JobState {
        guard canMove(to: next) else { throw InvalidTransition(from: self, to: next) }
        return next
    }
}
