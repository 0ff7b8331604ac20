/// A client's command, decoded and checked (docs/protocol.md, "Commands").
public enum Command: Sendable, Equatable {
    case start(StartRequest)
    case cancel(job: String, requestId: String?)
    case resume(epoch: String, since: Int64)
    case page(job: String, offset: Int, limit: Int, requestId: String?)
    case ping
    case auth(token: String, requestId: String?)
    /// The schedules and where each stands, as `GET /api/schedules` answers (docs/schedules.md).
    case schedules(requestId: String?)
    /// Pause, resume or run one schedule (with the control token, as a start needs).
    case schedule(name: String, action: ScheduleAction, requestId: String?)
    /// A worker introduces itself (docs/workers.md).
    case hello(WorkerHello)
    /// A worker's report or beat (docs/workers.md).
    case worker(WorkerReport)

    /// The command's `type` as it appears on the wire, for logs and metrics.
    public var typeName: String {
        switch self {
        case .start: return "start"
        case .cancel: return "cancel"
        case .resume: return "resume"
        case .page: return "page"
        case .ping: return "ping"
        case .auth: return "auth"
        case .schedules: return "schedules"
        case .schedule: return "schedule"
        case .hello: return "hello"
        case .worker(let report): return report.typeName
        }
    }
}
