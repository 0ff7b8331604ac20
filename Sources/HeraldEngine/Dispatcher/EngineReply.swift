/// The engine's answer to one `EngineRequest`.
public enum EngineReply: Sendable {
    case job(Result<JobRecord, EngineError>)
    case snapshot(Snapshot)
    case resume(ResumeAnswer)
    case page(Result<ResultPage, EngineError>)
    case news(NewsFeed)
    case statistics(EngineStatistics)
    case workers([WorkerInfo])
    case history(Result<HistoryPage, EngineError>)
    case schedules([ScheduleStatus])
    case schedule(Result<ScheduleStatus, EngineError>)
    case webhooks([WebhookStatus])
}
