import Foundation

/// What a command job's output means, line by line: progress-protocol lines update the bar, the
/// result or the results stream; every other line is a log line, batched into `log` events at most
/// ten times a second (and at most `CommandRunner.maxLinesPerBatch` lines each: the rest of a flood
/// is counted as skipped, so memory stays bounded). Thread: the job's worker thread.
struct OutputSession {
    enum Source {
        case stdout, stderr, descriptor3
    }

    let context: JobContext
    /// Whether protocol lines are read from stdout (`progressFrom: stdout`) or only from descriptor 3.
    let protocolOnStdout: Bool
    private var splitters: [Source: OutputLines] = [.stdout: OutputLines(), .stderr: OutputLines(), .descriptor3: OutputLines()]
    private var batch: [LogLine] = []
    /// The number of the batch's first line in the kept log (`LogKeeper.nextNumber`).
    private var batchFirst = 0
    private var skipped = 0
    private var lastFlush = ContinuousClock.now
    private var message: String?
    private var itemsStreamed = 0
    /// The `{"result": …}` the program reported last.
    private(set) var result: JSONObject?
    /// The last line the program wrote to stderr, for the failure message.
    private(set) var lastStderrLine: String?

    init(context: JobContext, protocolOnStdout: Bool) {
        self.context = context
        self.protocolOnStdout = protocolOnStdout
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer, from source: Source) {
        guard let lines = splitters[source]?.feed(bytes) else { return }
        for line in lines { handle(line, from: source) }
    }

    /// The stream ended: its unterminated last line counts too.
    mutating func finish(_ source: Source) {
        if let line = splitters[source]?.finish() { handle(line, from: source) }
    }

    private mutating func handle(_ line: String, from source: Source) {
        let parsed = ProgressLine.parse(line, protocolAllowed: source == .descriptor3 || (source == .stdout && protocolOnStdout))
        switch parsed {
        case .fraction(let fraction, let text):
            if let text { message = text }
            context.progress.report(completed: Int64((fraction * 1000).rounded()), total: 1000, message: message)
        case .counts(let completed, let total, let text):
            if let text { message = text }
            context.progress.report(completed: completed, total: total, message: message)
        case .result(let object):
            result = object
        case .items(let items):
            // Capped like search matches: at most --max-results are streamed (and kept for paging).
            let room = max(0, context.environment.maxSearchResults - itemsStreamed)
            itemsStreamed += min(room, items.count)
            if room > 0 { context.emitResults(Array(items.prefix(room))) }
        case .log(let percent):
            guard source != .descriptor3 else { return }  // descriptor 3 carries the protocol only
            if let percent { context.progress.report(completed: Int64((percent * 1000).rounded()), total: 1000, message: message) }
            if source == .stderr, !line.isEmpty { lastStderrLine = line }
            let logLine = LogLine(stream: source == .stderr ? .stderr : .stdout, text: line)
            if batch.isEmpty { batchFirst = context.log.nextNumber }
            context.log.append(logLine)  // kept for paging, streamed or not
            if batch.count < CommandRunner.maxLinesPerBatch {
                batch.append(logLine)
            } else {
                skipped += 1
            }
        }
    }

    /// Sends the batched lines as one event when the interval passed (or always, with `force`).
    mutating func flushLog(force: Bool) {
        guard !batch.isEmpty || skipped > 0 else { return }
        let now = ContinuousClock.now
        guard force || now - lastFlush >= .seconds(CommandRunner.logInterval) else { return }
        context.emitLog(batch, skipped: skipped, first: batchFirst)
        batch.removeAll(keepingCapacity: true)
        skipped = 0
        lastFlush = now
    }
}
