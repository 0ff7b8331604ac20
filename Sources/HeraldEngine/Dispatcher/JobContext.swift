import Synchronization

/// What a running job sees: its params, a progress reporter, a cancellation flag, and a way to
/// stream results. Threads: created on the dispatcher queue, then used from the job's worker
/// threads; every member is an atomic, a constant or a bounded hop onto the dispatcher queue.
public final class JobContext: Sendable {
    public let id: JobID
    public let kind: JobKind
    public let params: JSONObject
    public let environment: JobEnvironment
    public let progress: ProgressReporter
    /// The job's last output lines, for paging (command jobs; empty for the others). Carried from
    /// one attempt to the next.
    public let log: LogKeeper
    /// Which attempt this run is: 1 for the first (and for kinds that are never retried).
    public let attempt: Int
    private let cancelled = Atomic<Bool>(false)
    private let sink: JobEventSink
    private let exitRecord = Protected<JSONObject?>(nil)

    init(record: JobRecord, environment: JobEnvironment, progress: ProgressReporter, sink: JobEventSink, log: LogKeeper = LogKeeper()) {
        self.log = log
        self.id = record.id
        self.attempt = record.attempt ?? 1
        self.kind = record.kind
        self.params = record.params
        self.environment = environment
        self.progress = progress
        self.sink = sink
    }

    /// True once a cancel was asked for. Thread: any; one relaxed load.
    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Throws `JobCancelled` once a cancel was asked for. Call it between units of work.
    public func checkCancelled() throws(JobCancelled) {
        if isCancelled { throw JobCancelled() }
    }

    func requestCancel() { cancelled.store(true, ordering: .relaxed) }

    /// Streams a batch of result items (search matches) to subscribers. Thread: any but the
    /// dispatcher queue; waits while the dispatcher is more than `HopGate.limit` batches behind.
    public func emitResults(_ items: [JSONValue]) {
        guard !items.isEmpty else { return }
        sink.results(job: id, items: items)
    }

    /// Adds headlines to the news feed, which emits one `news` event. Thread: as `emitResults`.
    public func publishNews(_ headlines: [String]) {
        guard !headlines.isEmpty else { return }
        sink.news(job: id, headlines: headlines)
    }

    /// Streams a batch of output lines as one `log` event; `skipped` counts lines that came too fast
    /// to stream; `first` is the number of the first line in `log` (`LogKeeper.nextNumber` before
    /// it was appended). Thread: as `emitResults`.
    public func emitLog(_ lines: [LogLine], skipped: Int = 0, first: Int) {
        guard !lines.isEmpty || skipped > 0 else { return }
        sink.log(job: id, lines: lines, skipped: skipped, first: first)
    }

    /// Records how the job's program ended (`{"code": N}` or `{"signal": "KILL"}`): the job object
    /// shows it once the job ends. Thread: the job's worker thread, before `run` returns.
    public func recordExit(_ exit: JSONObject) {
        exitRecord.withLock { $0 = exit }
    }

    /// What `recordExit` recorded. Thread: the dispatcher queue, after `run` returned.
    var recordedExit: JSONObject? { exitRecord.withLock { $0 } }

    /// Emits the current progress at once, bypassing coalescing (the benchmark `ticker` only).
    /// Returns false when the dispatcher has too many such events in flight, or its subscriber holds
    /// too many undelivered events (`deliveryBacklog`): the event was not taken; slow down.
    public func emitProgressNow(_ progress: JobProgress) -> Bool {
        sink.uncoalescedProgress(job: id, progress)
    }
}
