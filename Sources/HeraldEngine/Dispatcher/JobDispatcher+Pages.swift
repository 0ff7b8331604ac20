import Dispatch

/// Reading one job and pages of its results or log (`GET /api/jobs/ID`, `/results`, `/log`, and the
/// `page` command): looked up on `queue`, read off it, from memory, the data folder or the archive.
extension JobDispatcher {
    /// One job's record: from memory on `queue`, else from the history archive, read off the queue
    /// (a job the history lists is readable by id for as long as the archive keeps it). `reply`
    /// runs on `queue` or on a global queue. Thread: any; never waits.
    func lookUpJob(_ id: String, reply: @escaping @Sendable (Result<JobRecord, EngineError>) -> Void) {
        queue.async { [self] in
            flushOutgoing()
            if let record = table[JobID(id)] { return reply(.success(record)) }
            guard let history, JobID.isWellFormed(id) else { return reply(.failure(EngineError(.notFound, "no job \(id)"))) }
            history.find(JobID(id)) { found in
                reply(found.map { .success($0) } ?? .failure(EngineError(.notFound, "no job \(id)")))
            }
        }
    }

    /// Reads a page of a job's results (sorted values for `sort`, streamed matches for `search`):
    /// the job is looked up on `queue`, the file is read on a global queue, so neither the caller nor
    /// the dispatcher waits for the disk. `reply` runs on that global queue. Thread: any.
    func readPage(job id: String, offset: Int, limit: Int, reply: @escaping @Sendable (Result<ResultPage, EngineError>) -> Void) {
        guard offset >= 0 else { return reply(.failure(.badRequest(field: "offset", "must be 0 or more"))) }
        guard (1...10_000).contains(limit) else { return reply(.failure(.badRequest(field: "limit", "must be from 1 to 10000"))) }
        queue.async { [self] in
            guard let record = table[JobID(id)] else {
                guard let history, JobID.isWellFormed(id) else { return reply(.failure(EngineError(.notFound, "no job \(id)"))) }
                let runners = runners
                return history.find(JobID(id)) { found in
                    guard let found else { return reply(.failure(EngineError(.notFound, "no job \(id)"))) }
                    reply(Self.archivedPage(of: found, runner: runners[found.kind]))
                }
            }
            if table.results.wasDropped(record.id) {
                return reply(
                    .failure(
                        EngineError(
                            .gone,
                            "the matches of job \(record.id) are no longer kept: finished jobs' matches past --kept-results-bytes go, oldest first"
                        )))
            }
            let streamed = table.results[record.id]
            let runner = runners[record.kind]
            let environment = environment
            if runner is CommandRunner {
                // A command job pages its kept log: from memory while it runs or is being written,
                // else from its file, read off the queue.
                if let kept = running[record.id]?.context.log ?? keptLogs.log(of: record.id) {
                    return reply(.success(Self.logPage(kept, offset: offset, limit: limit)))
                }
                let logs = logFiles
                return DispatchQueue.global(qos: .userInitiated).async {
                    let (first, lines) = logs.read(record.id)
                    reply(.success(Self.logPage(LogKeeper(lines: lines, first: first), offset: offset, limit: limit)))
                }
            }
            DispatchQueue.global(qos: .userInitiated).async {
                do throws(EngineError) {
                    if let runner, let page = try runner.page(of: record, offset: offset, limit: limit, environment: environment) {
                        return reply(.success(page))
                    }
                } catch {
                    return reply(.failure(error))
                }
                let slice = offset < streamed.count ? Array(streamed[offset..<min(streamed.count, offset + limit)]) : []
                reply(.success(ResultPage(offset: offset, total: streamed.count, values: slice)))
            }
        }
    }

    /// The answer to a page of a job that left memory: its results and log went with it.
    static func archivedPage(of record: JobRecord, runner: (any JobRunner)?) -> Result<ResultPage, EngineError> {
        let what = runner is CommandRunner ? "log" : "results"
        return .failure(
            EngineError(
                .gone,
                "job \(record.id) is archived: only the newest --recent-jobs finished jobs keep their \(what); its record is still readable at /api/jobs/\(record.id)"
            ))
    }

    static func logPage(_ kept: LogKeeper, offset: Int, limit: Int) -> ResultPage {
        let (first, total, lines) = kept.page(offset: offset, limit: limit)
        return ResultPage(offset: offset, total: total, values: lines.map(\.json), isLog: true, first: first)
    }
}
