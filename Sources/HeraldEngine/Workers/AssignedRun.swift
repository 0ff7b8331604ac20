import Dispatch
import Foundation
import Synchronization

/// One attempt a worker runs for a server (`herald work`): its own jobs file's command for the kind,
/// with the params the server validated, run exactly as the server runs command jobs (its own process
/// group, the progress protocol, logs, timeout, grace). What happens is told through `report` as
/// worker messages: progress (sampled every `sampleInterval`), log lines in messages of at most
/// `maxMessageBytes`, then `result` or `fail`.
///
/// Threads: `start` runs the program on a thread of its own; progress is sampled on `sampler`;
/// `cancel`, `abandon` and `isFinished` may be called from any thread. `report` is called from the
/// run's thread and the sampler, one call at a time (a mutex orders them).
public final class AssignedRun: Sendable {
    public static let sampleInterval = 0.1
    /// Log messages are cut below the server's default largest message (64 KiB).
    public static let maxMessageBytes = 48 * 1024

    public let job: JobID
    public let attempt: Int
    public let kind: JobKind
    private let runner: CommandRunner
    private let context: JobContext
    private let reporter: Reporter
    private let sampler = DispatchQueue(label: "herald.worker.sampler")
    private let finished = Atomic<Bool>(false)
    /// Cleared on `sampler` when the program ended, so no progress follows the outcome.
    private let sampling = Atomic<Bool>(true)

    /// Orders reports and remembers what was last said of progress. Reports stop once abandoned.
    /// @unchecked Sendable: `lastProgress` and `abandoned` are read and written only under `lock`.
    private final class Reporter: JobEventSink, @unchecked Sendable {
        let lock = NSLock()
        let send: @Sendable (WorkerReport) -> Void
        let job: JobID
        let attempt: Int
        var lastProgress: JobProgress?
        var abandoned = false

        init(job: JobID, attempt: Int, send: @escaping @Sendable (WorkerReport) -> Void) {
            self.job = job
            self.attempt = attempt
            self.send = send
        }

        func say(_ report: WorkerReport) {
            lock.lock()
            defer { lock.unlock() }
            if !abandoned { send(report) }
        }

        func progress(_ progress: JobProgress) {
            lock.lock()
            defer { lock.unlock() }
            guard !abandoned, progress != lastProgress else { return }
            lastProgress = progress
            send(.progress(job: job, attempt: attempt, progress))
        }

        func abandon() {
            lock.lock()
            abandoned = true
            lock.unlock()
        }

        func results(job: JobID, items: [JSONValue]) { say(.results(job: job, attempt: attempt, items: items)) }
        func news(job: JobID, headlines: [String]) {}
        func uncoalescedProgress(job: JobID, _ progress: JobProgress) -> Bool { false }

        /// `first` is this worker's own count: the server numbers the lines it keeps itself.
        func log(job: JobID, lines: [LogLine], skipped: Int, first: Int) {
            // Cut into messages the server takes: at most `maxMessageBytes` of text each.
            var batch: [LogLine] = []
            var bytes = 0
            for line in lines {
                if !batch.isEmpty, bytes + line.text.utf8.count + 32 > AssignedRun.maxMessageBytes {
                    say(.log(job: job, attempt: attempt, lines: batch, skipped: 0))
                    batch = []
                    bytes = 0
                }
                batch.append(line)
                bytes += line.text.utf8.count + 32
            }
            if !batch.isEmpty || skipped > 0 { say(.log(job: job, attempt: attempt, lines: batch, skipped: skipped)) }
        }
    }

    /// - Parameters:
    ///   - params: as the server sent them (validated there); checked again against this worker's
    ///     declaration, which must agree (the server refused a `hello` whose declaration differs).
    public init(
        job: JobID, attempt: Int, definition: CommandKind, params: JSONObject,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        report: @escaping @Sendable (WorkerReport) -> Void
    ) throws(EngineError) {
        self.job = job
        self.attempt = attempt
        self.kind = definition.name
        self.runner = CommandRunner(definition, environment: environment)
        let checked = try definition.validate(params)
        let reporter = Reporter(job: job, attempt: attempt, send: report)
        self.reporter = reporter
        var record = JobRecord(id: job, kind: definition.name, params: checked, createdAt: 0)
        record.attempt = attempt
        let here = FileManager.default.currentDirectoryPath
        let environment = JobEnvironment(
            searchRoot: URL(fileURLWithPath: here), dataDirectory: URL(fileURLWithPath: here), newsSource: NewsSource())
        self.context = JobContext(record: record, environment: environment, progress: ProgressReporter(onFirstReport: {}), sink: reporter)
    }

    /// Starts the program on a thread of its own. Call once.
    public func start() {
        sampler.asyncAfter(deadline: .now() + Self.sampleInterval) { [self] in sampleWhileRunning() }
        let thread = Thread { [self] in
            let outcome = Result { try runner.run(context) }
            // The last value goes out before the outcome; sampling stops with it.
            sampler.sync {
                sampling.store(false, ordering: .relaxed)
                sampleProgress()
            }
            let exit = context.recordedExit
            switch outcome {
            case .success(let summary):
                reporter.say(.result(job: job, attempt: attempt, summary: summary))
            case .failure(let error as JobFailure):
                reporter.say(.fail(job: job, attempt: attempt, error: error.message, exit: exit, cancelled: false))
            case .failure(is JobCancelled):
                reporter.say(.fail(job: job, attempt: attempt, error: "cancelled", exit: exit, cancelled: true))
            case .failure(let error):
                reporter.say(.fail(job: job, attempt: attempt, error: String(describing: error), exit: exit, cancelled: false))
            }
            finished.store(true, ordering: .releasing)
        }
        thread.name = "herald.work.\(kind.rawValue)"
        thread.start()
    }

    /// Thread: `sampler`.
    private func sampleWhileRunning() {
        guard sampling.load(ordering: .relaxed) else { return }
        sampleProgress()
        sampler.asyncAfter(deadline: .now() + Self.sampleInterval) { [self] in sampleWhileRunning() }
    }

    private func sampleProgress() {
        guard context.progress.hasAnyReport else { return }
        reporter.progress(context.progress.sample())
    }

    /// Ends the program's process group (SIGTERM, grace, SIGKILL); `fail` with `cancelled` follows
    /// once none of it is left. Thread: any.
    public func cancel() { context.requestCancel() }

    /// Ends the program and says nothing more: the server no longer takes this attempt's reports
    /// (`lease_lost`). Thread: any.
    public func abandon() {
        reporter.abandon()
        context.requestCancel()
    }

    /// True once the program ended and its last report was made. Thread: any.
    public var isFinished: Bool { finished.load(ordering: .acquiring) }
}
