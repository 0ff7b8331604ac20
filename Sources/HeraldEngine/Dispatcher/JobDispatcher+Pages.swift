import Dispatch

/// Reading one job, pages of its results or log, and pages of history (`GET /api/jobs/ID`,
/// `/results`, `/log`, `/api/jobs?…`, and the `page` command): looked up on `queue`, read off it
/// (`JobArchive`), from memory, the data folder or the archive. Thread: any; never waits. `reply`
/// runs on `queue` or on a global queue.
extension JobDispatcher {
    /// One job's record: from memory, else from the history archive (a job the history lists is
    /// readable by id for as long as the archive keeps it).
    func lookUpJob(_ id: String, reply: @escaping @Sendable (Result<JobRecord, EngineError>) -> Void) {
        queue.async { [self] in
            jobs.flushOutgoing()
            if let record = jobs.table[JobID(id)] { return reply(.success(record)) }
            archive.find(id, reply: reply)
        }
    }

    /// A page of a job's results (sorted values for `sort`, streamed matches for `search`) or of a
    /// command job's log: from memory while it runs, waits for a retry or is being written, else
    /// from its file.
    func readPage(job id: String, offset: Int, limit: Int, reply: @escaping @Sendable (Result<ResultPage, EngineError>) -> Void) {
        guard offset >= 0 else { return reply(.failure(.badRequest(field: "offset", "must be 0 or more"))) }
        guard (1...10_000).contains(limit) else { return reply(.failure(.badRequest(field: "limit", "must be from 1 to 10000"))) }
        queue.async { [self] in
            guard let record = jobs.table[JobID(id)] else {
                let runners = runners
                return archive.find(id) { found in reply(found.flatMap { JobArchive.archivedPage(of: $0, runner: runners[$0.kind]) }) }
            }
            if jobs.table.results.wasDropped(record.id) { return reply(.failure(JobArchive.droppedResults(of: record.id))) }
            let runner = runners[record.kind]
            guard runner is CommandRunner else {
                return JobArchive.readResultsPage(
                    of: record, runner: runner, streamed: jobs.table.results[record.id], environment: environment, offset: offset,
                    limit: limit, reply: reply)
            }
            if let kept = jobs.runs[record.id]?.context.log ?? jobs.runs.logWaitingForRetry(record.id) ?? archive.logBeingWritten(record.id)
            {
                return reply(.success(JobArchive.logPage(kept, offset: offset, limit: limit)))
            }
            archive.readLogPage(record.id, offset: offset, limit: limit, reply: reply)
        }
    }

    /// Picks from the jobs in memory on `queue` (a pass over them, no I/O), then lets the history
    /// store add the archive's jobs on its own threads.
    func readHistory(_ query: HistoryQuery, reply: @escaping @Sendable (Result<HistoryPage, EngineError>) -> Void) {
        guard HistoryQuery.limits.contains(query.limit) else {
            return reply(
                .failure(
                    .badRequest(
                        field: "limit", "must be an integer from \(HistoryQuery.limits.lowerBound) to \(HistoryQuery.limits.upperBound)")))
        }
        queue.async { [self] in
            var picker = HistoryPicker(query)
            picker.offerMemory(jobs.table.all)
            guard let history = archive.history else { return reply(.success(picker.page())) }
            history.page(picker) { reply(.success($0)) }
        }
    }
}
