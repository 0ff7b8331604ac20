/// Something that happened, before it has a place in the stream.
public enum EngineEvent: Sendable, Hashable {
    /// A job changed state (or was created). Boxed (`indirect`): a job record is 280 bytes, and
    /// every event, progress too, would otherwise be that large wherever it is copied (the event log,
    /// each batch, the inbox); unboxed, the largest case is progress, about 75 bytes.
    indirect case job(JobRecord)
    /// A job's progress moved.
    case progress(job: JobID, JobProgress)
    /// A batch of a job's results (search matches).
    case results(job: JobID, items: [JSONValue])
    /// The news feed gained items: the new revision and the new items, newest first.
    case news(revision: Int64, items: [NewsItem])
    /// A batch of a command job's output lines; `skipped` lines came too fast to stream (they are
    /// counted, not sent). `first` is the number of the first of `lines` in the job's kept log as
    /// pages count it (a page's `first` plus its offset), so a viewer joins paged and streamed
    /// lines exactly.
    case log(job: JobID, lines: [LogLine], skipped: Int, first: Int)
    /// The connected workers changed (one attached, left, took or ended a job): all of them now.
    case workers([WorkerInfo])

    /// The job the event is about; nil for news and workers.
    public var job: JobID? {
        switch self {
        case .job(let record): return record.id
        case .progress(let job, _), .results(let job, _), .log(let job, _, _, _): return job
        case .news, .workers: return nil
        }
    }
}
