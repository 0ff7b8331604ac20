/// Something an identity asks to do. The role decides whether the kind of action is allowed;
/// the principal's scope decides whether it reaches the job or kind named.
public enum AccessAction: Sendable, Hashable {
    /// Snapshot, events, logs, results, history and pages (of the jobs in scope).
    case watch
    /// Start a job of this kind.
    case start(kind: String)
    /// Cancel a job this identity started.
    case cancelOwn
    /// Cancel a job someone else started.
    case cancelAny
    /// Pause, resume or run a schedule now.
    case controlSchedule
    /// Make a share link to one job.
    case share
    /// Read the audit trail.
    case readAudit
    /// Revoke sessions, keys and share links.
    case revoke
    /// See and drain workers.
    case manageWorkers
    /// Speak the worker protocol.
    case work

    /// How a refusal names what was refused ("start jobs of kind deploy").
    public var description: String {
        switch self {
        case .watch: return "watch jobs"
        case .start(let kind): return "start jobs of kind \(kind)"
        case .cancelOwn: return "cancel jobs"
        case .cancelAny: return "cancel other people's jobs"
        case .controlSchedule: return "pause, resume or run schedules"
        case .share: return "share jobs"
        case .readAudit: return "read the audit trail"
        case .revoke: return "revoke credentials"
        case .manageWorkers: return "manage workers"
        case .work: return "run jobs as a worker"
        }
    }
}
