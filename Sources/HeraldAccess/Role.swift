/// What an identity may do. Each role includes everything the one before it may do, except `worker`,
/// which only speaks the worker protocol (a worker's key cannot watch, and a viewer cannot work).
public enum Role: String, Sendable, Hashable, CaseIterable, Comparable {
    case viewer
    case `operator`
    case admin
    case worker

    /// Whether this role may take `action` at all; scope (kinds, jobs) is checked by `Principal`.
    public func permits(_ action: AccessAction) -> Bool {
        switch action {
        case .watch: return self != .worker
        case .start, .cancelOwn, .controlSchedule, .share: return self == .operator || self == .admin
        case .cancelAny, .readAudit, .revoke, .manageWorkers: return self == .admin
        // A worker's credential is its own: an admin's key does not make a worker.
        case .work: return self == .worker
        }
    }

    /// viewer < operator < admin; `worker` stands apart and sorts first.
    public static func < (left: Role, right: Role) -> Bool { left.rank < right.rank }

    private var rank: Int {
        switch self {
        case .worker: return 0
        case .viewer: return 1
        case .operator: return 2
        case .admin: return 3
        }
    }
}
