import HeraldAccess

/// A question or command for the engine, sent as a message: the caller never waits for the answer,
/// which comes back as an `EngineReply` through a callback (`JobEngine.send`).
public enum EngineRequest: Sendable, Equatable {
    /// Start a job (answered with `.job`).
    case start(StartRequest)
    /// Cancel a job by id for `by` (answered with `.job`; `forbidden` when `by` may not cancel it,
    /// which only the job's record can tell: who started it, its kind).
    case cancel(String, by: Principal = .anonymousAdmin)
    /// The whole state now (answered with `.snapshot`).
    case snapshot
    /// The events after `since` in `epoch`, or a snapshot (answered with `.resume`).
    case resume(epoch: String, since: Int64)
    /// A page of a job's results (answered with `.page`).
    case page(job: String, offset: Int, limit: Int)
    /// One job's record, in memory or archived (answered with `.job`, `not_found` when unknown).
    case job(String)
    /// The news feed (answered with `.news`).
    case news
    /// Counters for `/healthz` (answered with `.statistics`).
    case statistics
    /// Counters for `/metrics`: `.statistics` with the allocator's figures (`heap`), which are read
    /// off the engine's serial context, so the reply comes from another thread.
    case metrics
    /// The connected workers (answered with `.workers`).
    case workers
    /// A page of job history, in memory and archived (answered with `.history`).
    case history(HistoryQuery)
    /// The schedules and where each stands (answered with `.schedules`).
    case schedules
    /// Pause, resume or run one schedule now (answered with `.schedule`).
    case controlSchedule(name: String, ScheduleAction)
    /// The webhooks and their latest deliveries (answered with `.webhooks`).
    case webhooks
}
