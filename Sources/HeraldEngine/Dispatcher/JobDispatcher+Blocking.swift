import HeraldAccess
import Dispatch

/// Blocking conveniences for tests and tools. Thread: any but `queue`; they wait for it. Those that
/// change state hand their events to subscribers before they return, so a caller that asks a
/// subscriber what happened sees it.
extension JobDispatcher {
    /// Starts a job, or returns the job an earlier request with the same `requestId` started.
    public func start(_ request: StartRequest) -> Result<JobRecord, EngineError> {
        queue.sync {
            defer { jobs.flushOutgoing() }
            return jobs.startOnQueue(request)
        }
    }

    /// Cancels a queued, waiting or running job. A running job ends `cancelled` once it notices.
    public func cancel(_ id: String, by principal: Principal = .anonymousAdmin) -> Result<JobRecord, EngineError> {
        queue.sync {
            defer { jobs.flushOutgoing() }
            return jobs.cancelOnQueue(id, by: principal)
        }
    }

    public func snapshot() -> Snapshot { queue.sync { jobs.makeSnapshot() } }

    /// The events after `since` in `epoch`, or a snapshot when the log no longer has them.
    public func resume(epoch: String, since: Int64) -> ResumeAnswer {
        guard case .resume(let answer) = queue.sync(execute: { answer(.resume(epoch: epoch, since: since)) }) else {
            preconditionFailure("a resume is answered with .resume")
        }
        return answer
    }

    /// Subscribes and returns the snapshot the handler's first event follows, atomically (tests).
    func subscribeWithSnapshot(_ handler: @escaping @Sendable ([SequencedEvent]) -> Void) -> (Snapshot, Int) {
        let id = Self.newSubscriberID()
        return queue.sync {
            jobs.flushOutgoing()
            jobs.stream.subscribe(id, handler)
            return (jobs.makeSnapshot(), id)
        }
    }

    public func job(_ id: String) -> JobRecord? { queue.sync { jobs.table[JobID(id)] } }

    public func allJobs() -> [JobRecord] { queue.sync { jobs.table.all } }

    public func currentStatistics() -> EngineStatistics {
        queue.sync { statisticsOnQueue() }
    }

    public func newsFeed() -> NewsFeed { queue.sync { jobs.news } }

    /// The webhooks and their latest deliveries (`GET /api/webhooks`).
    public func webhookStatuses() -> [WebhookStatus] { queue.sync { webhooks.webhookStatuses() } }

    /// A page of a job's results, waiting for the read.
    public func page(job id: String, offset: Int, limit: Int) -> Result<ResultPage, EngineError> {
        waitFor { readPage(job: id, offset: offset, limit: limit, reply: $0) }
    }

    /// A page of job history, waiting for the read.
    public func history(_ query: HistoryQuery) -> Result<HistoryPage, EngineError> {
        waitFor { readHistory(query, reply: $0) }
    }

    /// Runs a read that answers on another thread, and waits for its answer.
    private func waitFor<Answer: Sendable>(_ read: (@escaping @Sendable (Answer) -> Void) -> Void) -> Answer {
        let done = DispatchSemaphore(value: 0)
        let result = Protected<Answer?>(nil)
        read { answer in
            result.withLock { $0 = answer }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
