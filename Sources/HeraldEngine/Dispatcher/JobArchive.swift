import Dispatch
import Foundation

/// Where jobs go when the dispatcher lets go of them, and how pages read them back there: the
/// history store (every record; the archive of jobs that left memory), command jobs' log files, and
/// the logs on their way to those files. Files are read and written off the dispatcher queue.
///
/// A log that cannot be written (a full disk) stays in memory, where pages read it, and is written
/// again every `retryInterval` seconds until it is; `health` tells the log and `/healthz`.
///
/// Thread: any. `beingWritten` is guarded by its lock; `waiting` and `retryScheduled` are touched
/// only on `writes`.
final class JobArchive: @unchecked Sendable {
    // @unchecked Sendable: `waiting` and `retryScheduled` are confined to `writes`; the rest is
    // immutable or locked.
    let history: HistoryStore?
    let health: StorageHealth
    private let logFiles: LogFiles
    private let retryInterval: Double
    /// Ended command jobs' logs not yet in their file: pages read them here until then.
    private let beingWritten = Protected<[JobID: LogKeeper]>([:])
    /// Log files are written one at a time, in the order jobs ended.
    private let writes = DispatchQueue(label: "herald.logs", qos: .utility)
    /// Logs whose write failed, waiting for a retry. Thread: `writes`.
    private var waiting: Set<JobID> = []
    private var retryScheduled = false

    init(history: HistoryStore?, logFolder: URL, retryInterval: Double = 5) {
        self.history = history
        self.health = history?.health ?? StorageHealth()
        self.logFiles = LogFiles(folder: logFolder)
        self.retryInterval = retryInterval
    }

    /// Writes an ended command job's log to its file, off the caller's thread.
    func writeLog(_ kept: LogKeeper, of id: JobID) {
        beingWritten.withLock { $0[id] = kept }
        writes.async { [self] in write(id) }
    }

    /// Thread: `writes`.
    private func write(_ id: JobID) {
        guard let kept = beingWritten.withLock({ $0[id] }) else { return }
        let (first, lines) = kept.all()
        do {
            try logFiles.write(id, lines, first: first)
        } catch {
            waiting.insert(id)
            health.failed("logs", path: logFiles.folder.path, "\(error)")
            return scheduleRetry()
        }
        beingWritten.withLock { $0[id] = nil }
        if waiting.remove(id) != nil, waiting.isEmpty { health.succeeded("logs") }
    }

    /// Thread: `writes`.
    private func scheduleRetry() {
        guard !retryScheduled else { return }
        retryScheduled = true
        writes.asyncAfter(deadline: .now() + retryInterval) { [self] in
            retryScheduled = false
            for id in waiting.sorted() { write(id) }
        }
    }

    func logBeingWritten(_ id: JobID) -> LogKeeper? { beingWritten.withLock { $0[id] } }

    /// Jobs that left memory: the history archives them, their logs go (files, and logs waiting).
    func forget(_ leaving: [JobRecord]) {
        let ids = Set(leaving.map(\.id))
        writes.async { [self] in
            beingWritten.withLock { logs in for id in ids { logs[id] = nil } }
            let wasWaiting = !waiting.isEmpty
            waiting.subtract(ids)
            if wasWaiting, waiting.isEmpty { health.abandoned("logs") }
            logFiles.remove(ids)
        }
        history?.forget(leaving)
    }

    /// A job that is not in memory, from the archive (read off the caller's thread), or `not_found`.
    func find(_ id: String, reply: @escaping @Sendable (Result<JobRecord, EngineError>) -> Void) {
        guard let history, JobID.isWellFormed(id) else { return reply(.failure(EngineError(.notFound, "no job \(id)"))) }
        history.find(JobID(id)) { found in
            reply(found.map { .success($0) } ?? .failure(EngineError(.notFound, "no job \(id)")))
        }
    }

    /// A page of an ended command job's log file, read on a global queue where `reply` runs.
    func readLogPage(_ id: JobID, offset: Int, limit: Int, reply: @escaping @Sendable (Result<ResultPage, EngineError>) -> Void) {
        let files = logFiles
        DispatchQueue.global(qos: .userInitiated).async {
            let (first, lines) = files.read(id)
            reply(.success(Self.logPage(LogKeeper(lines: lines, first: first), offset: offset, limit: limit)))
        }
    }

    /// A page of a job's results: the runner's own (sort's numbers, from their file), else the matches
    /// its `results` events carried. Read on a global queue where `reply` runs.
    static func readResultsPage(
        of record: JobRecord, runner: (any JobRunner)?, streamed: [JSONValue], environment: JobEnvironment, offset: Int, limit: Int,
        reply: @escaping @Sendable (Result<ResultPage, EngineError>) -> Void
    ) {
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

    /// The answer to a page of a job that left memory: its results and log went with it.
    static func archivedPage(of record: JobRecord, runner: (any JobRunner)?) -> Result<ResultPage, EngineError> {
        let what = runner is CommandRunner ? "log" : "results"
        return .failure(
            EngineError(
                .gone,
                "job \(record.id) is archived: only the newest --recent-jobs finished jobs keep their \(what); its record is still readable at /api/jobs/\(record.id)"
            ))
    }

    /// The answer to a page of a finished job whose matches the `--kept-results-bytes` bound dropped.
    static func droppedResults(of id: JobID) -> EngineError {
        EngineError(
            .gone, "the matches of job \(id) are no longer kept: finished jobs' matches past --kept-results-bytes go, oldest first")
    }

    static func logPage(_ kept: LogKeeper, offset: Int, limit: Int) -> ResultPage {
        let (first, total, lines) = kept.page(offset: offset, limit: limit)
        return ResultPage(offset: offset, total: total, values: lines.map(\.json), isLog: true, first: first)
    }
}
