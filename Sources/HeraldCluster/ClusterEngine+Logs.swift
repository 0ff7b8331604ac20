import HeraldEngine
import HeraldRedis

/// A command job's log in Redis is what its `log` events carried: a flood makes the dispatcher skip
/// lines from the stream (counted in `skipped`), while its own kept log has every one of the last
/// `keptLogLines`. So that any node pages the same lines once the node that ran the job is gone, the
/// node writes the job's whole kept log over the streamed one when a flooded job has ended.
extension ClusterEngine {
    /// Notes the jobs whose log events skipped lines, and keeps the whole log of each that ended.
    /// After the batch is appended, so the job's last streamed lines are in Redis before they are
    /// replaced (the dispatcher emits a job's log before its end). Thread: the publisher thread.
    func keepWholeLogsOfFloodedJobs(_ batch: [SequencedEvent]) {
        var ended: [JobID] = []
        floodedLogs.withLock { flooded in
            for event in batch {
                switch event.event {
                case .log(let job, _, let skipped, _) where skipped > 0:
                    flooded.insert(job)
                case .job(let record) where record.state.isTerminal:
                    if flooded.remove(record.id) != nil { ended.append(record.id) }
                default:
                    break
                }
            }
        }
        for job in ended { keepWholeLog(of: job) }
    }

    /// Asks this node's dispatcher for the job's kept log, then writes it to Redis in place of the
    /// streamed lines. Thread: any (the answer hops to `commandQueue`).
    func keepWholeLog(of job: JobID) {
        local.send(.page(job: job.rawValue, offset: 0, limit: settings.keptLogLines)) { [self] answer in
            guard case .page(.success(let page)) = answer, page.isLog else { return }
            commandQueue.async { [self] in
                let keys = settings.keys
                let lines = page.values.map { JSONWriter.encode($0) }
                do {
                    _ = try commands().evaluate(
                        KeepLogScript(keys: .init(keys, job: job), args: .init(job: job, first: page.first, lines: lines)))
                } catch {
                    // Redis is away: the streamed lines stay, and this node still pages the whole log.
                    logger("keeping the whole log of \(job) in Redis: \(error)")
                }
            }
        }
    }
}
