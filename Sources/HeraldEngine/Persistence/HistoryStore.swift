import Dispatch
import Foundation
import HeraldSupport

/// Job history on disk (docs/operations.md, "Job history and rotation"):
/// - `jobs.jsonl`, the journal of the jobs in memory: a job object appended at every state change
///   (the last line for an id wins) and a `{"forgotten":[…]}` line when jobs leave memory. It is
///   rewritten (atomically) with one line per live job at start-up, and again only once it has grown
///   to `journalGrowthFactor` times that size, so no finished job costs a rewrite.
/// - `history/archive-<n>.jsonl`, the archive of jobs that left memory, rotated (`HistoryArchive`).
///
/// A full disk: a journal append that fails is cut back to the last whole line, and the journal is
/// rewritten from memory (`compact`) once space returns; archive lines wait in memory
/// (`HistoryArchive`); `health` says so in the log a few times, not once per write, and `/healthz`
/// reports it. Retries run every `retryInterval` seconds while anything waits.
///
/// Threads: `load` runs once, before any other call. `record`, `forget`, `page` and `flush` may be
/// called from any thread (the dispatcher queue) and hop onto `io`, which alone touches the files
/// and the state below; `page` then reads the archive on a global queue, so neither the dispatcher
/// nor `io` waits for a long read.
public final class HistoryStore: @unchecked Sendable {
    // @unchecked Sendable: every `var` below is only touched on `io` (`load` runs there too, through
    // `io.sync`); `problems` is written only by `load`, before the store is shared.
    public let fileURL: URL
    public let limits: HistoryLimits
    private let directory: URL
    private let io = DispatchQueue(label: "herald.history")
    private let log: @Sendable (String) -> Void
    /// Closed archive segments' key ranges. Thread: any (it has its own lock).
    private let summaries = HistoryArchive.Summaries()
    /// What `load` had to report: a file set aside, lines that could not be read, a torn last line.
    public private(set) var problems: [String] = []
    /// Whether writes to the data folder work. Thread: any.
    public let health: StorageHealth
    /// Seconds between tries to write what waits after a failed write.
    let retryInterval: Double

    // Confined to `io`:
    private var journal: Int32 = -1
    private var journalBytes = 0
    /// The last line written for each job in memory, and how many bytes those lines take.
    private var live: [JobID: [UInt8]] = [:]
    private var liveBytes = 0
    /// Ids in the order they first appeared; forgotten ones are dropped at the next compaction.
    private var order: [JobID] = []
    private var archive: HistoryArchive?
    private var syncScheduled = false
    /// Set while the journal on disk is behind `live` (a write failed): nothing is appended to it
    /// until a rewrite from `live` succeeds.
    private var journalStale = false
    private var retryScheduled = false
    /// How many times the journal was rewritten, `load`'s rewrite included (`diskUsage` tells it).
    private var compactions = 0

    public init(
        directory: URL, limits: HistoryLimits = HistoryLimits(), retryInterval: Double = 5, health: StorageHealth? = nil,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.directory = directory
        self.fileURL = directory.appendingPathComponent("jobs.jsonl")
        self.limits = limits
        self.retryInterval = retryInterval
        self.health = health ?? StorageHealth(log: log)
        self.log = log
    }

    deinit {
        // Nothing else holds the store any more (every `io` block held it), so no queue is needed.
        if journal >= 0 { close(journal) }
        archive?.close()
    }

    private var archiveFolder: URL { directory.appendingPathComponent("history") }

    /// Reads the journal, marks jobs that were unfinished as `interrupted`, rewrites the journal
    /// compactly and opens the archive. A journal with unreadable lines is kept beside it as
    /// `jobs.jsonl.corrupt-<time>-<tag>`, never deleted; a torn last line is dropped and reported.
    /// Temporary files that a crash left in the data folder are removed. Thread: any, once.
    public func load() -> [JobRecord] {
        io.sync { loadOnIO() }
    }

    private func loadOnIO() -> [JobRecord] {
        let manager = FileManager.default
        try? manager.createDirectory(at: directory, withIntermediateDirectories: true)
        let leftovers = [directory, directory.appendingPathComponent("logs"), archiveFolder].reduce(0) {
            $0 + AtomicFile.removeLeftovers(in: $1)
        }
        if leftovers > 0 { report("history: removed \(leftovers) unfinished temporary file(s) that a crash left in \(directory.path)") }
        archive = HistoryArchive.open(folder: archiveFolder, limits: limits, summaries: summaries, report: report)

        let bytes = manager.contents(atPath: fileURL.path).map { [UInt8]($0) } ?? []
        let contents = HistoryJournal.read(bytes)
        if let torn = contents.tornTail {
            report(
                "history: dropped a torn last line (\(torn) bytes) at the end of \(fileURL.lastPathComponent), left by a crash while it was written; every whole line was loaded"
            )
        }
        let loaded = contents.records.map(Self.markedInterrupted)
        if contents.unreadable > 0 {
            let aside = fileURL.appendingPathExtension("corrupt-\(Int(Date().timeIntervalSince1970))-\(UUID().uuidString.prefix(8))")
            do { try manager.copyItem(at: fileURL, to: aside) } catch {
                // Without a copy aside, rewriting would lose the unreadable lines: leave the file as it is.
                report(
                    "history: \(contents.unreadable) unreadable line(s) in \(fileURL.path) and no copy could be made (\(error.localizedDescription)); the file is left untouched and history will not persist"
                )
                return loaded
            }
            report(
                "history: \(contents.unreadable) unreadable line(s) in \(fileURL.path); the file was kept as \(aside.lastPathComponent) and the readable jobs loaded"
            )
        }
        for record in loaded {
            let line = Self.line(record)
            order.append(record.id)
            live[record.id] = line
            liveBytes += line.count
        }
        if let problem = compact() { problems.append(problem) }
        return loaded
    }

    /// Logs a problem of `load` and keeps it in `problems`. Thread: `io`, during `load` only.
    private func report(_ problem: String) {
        problems.append(problem)
        log(problem)
    }

    /// A job that was unfinished when the process stopped is `interrupted` now, with no rate or ETA
    /// (it no longer moves); the lifecycle refuses the move for a finished one, which is kept as it was.
    private static func markedInterrupted(_ record: JobRecord) -> JobRecord {
        var marked = record
        guard (try? marked.move(to: .interrupted)) != nil else { return record }
        marked.progress.rate = nil
        marked.progress.eta = nil
        marked.markEnded(
            error: "the server stopped while this job was \(record.state.rawValue)", at: record.finishedAt ?? WallClock.millis())
        return marked
    }

    private static func line(_ record: JobRecord) -> [UInt8] {
        var line = JSONWriter.encode(record.json)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    // MARK: - Writing (any thread; the work runs on `io`)

    /// Appends a job's current state. Thread: any.
    public func record(_ record: JobRecord) {
        let line = Self.line(record)
        io.async { [self] in
            if let old = live.updateValue(line, forKey: record.id) { liveBytes -= old.count } else { order.append(record.id) }
            liveBytes += line.count
            append(line)
            compactIfGrown()
        }
    }

    /// Jobs that left memory (their final state, oldest first): appended to the archive, then
    /// marked forgotten in the journal. A crash between the two leaves a job in both, which a page
    /// shows once. Thread: any.
    public func forget(_ records: [JobRecord]) {
        guard !records.isEmpty else { return }
        io.async { [self] in
            // The journal's last line for a job is its final state: archived as it is, not encoded again.
            let problem = archive?.append(records.map { (HistoryCursor($0), live[$0.id] ?? Self.line($0)) })
            noteArchive(problem)
            for record in records {
                if let old = live.removeValue(forKey: record.id) { liveBytes -= old.count }
            }
            append(HistoryJournal.forgottenLine(records.map(\.id)))
            compactIfGrown()
        }
    }

    /// One whole line at the end of the journal (`O_APPEND`, one write), or none: a write that fails
    /// is cut back, so the file ends with a whole line. Thread: `io`.
    private func append(_ line: [UInt8]) {
        guard journal >= 0, !journalStale else { return }
        do { try line.withUnsafeBytes { try AtomicFile.writeAll(journal, $0) } } catch {
            ftruncate(journal, off_t(journalBytes))
            journalStale = true
            health.failed("history", path: fileURL.path, "\(error)")
            scheduleRetry()
            return
        }
        journalBytes += line.count
        scheduleSync()
    }

    /// Tells `health` how the archive's last write went. Thread: `io`.
    private func noteArchive(_ problem: String?) {
        if let problem {
            health.failed("archive", path: archiveFolder.path, problem)
            scheduleRetry()
        } else {
            health.succeeded("archive")
        }
    }

    /// Writes what waits (the journal from memory, the archive's lines) every `retryInterval`
    /// seconds until nothing does. Thread: `io`.
    private func scheduleRetry() {
        guard !retryScheduled else { return }
        retryScheduled = true
        io.asyncAfter(deadline: .now() + retryInterval) { [self] in
            retryScheduled = false
            if journalStale { _ = compact() }
            if archive?.hasUnwritten == true { noteArchive(archive?.retry()) }
        }
    }

    /// Thread: `io`.
    private func compactIfGrown() {
        guard journal >= 0, !journalStale, limits.mustCompactJournal(fileBytes: journalBytes, liveBytes: liveBytes) else { return }
        _ = compact()
    }

    /// Replaces the journal atomically with one line per live job, then appends from there. When it
    /// cannot (a full disk), the journal on disk stays as it was, nothing is appended to it, and a
    /// retry is scheduled; returns what went wrong. Thread: `io`.
    private func compact() -> String? {
        order.removeAll { live[$0] == nil }
        var text: [UInt8] = []
        text.reserveCapacity(liveBytes)
        for id in order { text += live[id] ?? [] }
        do {
            try AtomicFile.write(Data(text), to: fileURL)
            let reopened = open(fileURL.path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard reopened >= 0 else { throw AtomicFile.Failure(description: String(cString: strerror(errno))) }
            if journal >= 0 { close(journal) }
            journal = reopened
            journalBytes = text.count
            compactions += 1
            journalStale = false
            health.succeeded("history")
            return nil
        } catch {
            journalStale = true
            health.failed("history", path: fileURL.path, "\(error)")
            scheduleRetry()
            return "history: cannot write \(fileURL.path): \(error)"
        }
    }

    /// Lines reach the disk within about a second even without a `flush` (a power loss then costs
    /// at most that second; a crash of the process alone loses nothing already written).
    private func scheduleSync() {
        guard !syncScheduled else { return }
        syncScheduled = true
        io.asyncAfter(deadline: .now() + 1) { [self] in
            syncScheduled = false
            if journal >= 0 { fsync(journal) }
            archive?.sync()
        }
    }

    /// Waits until every record so far is written and synced. Thread: any but `io`.
    public func flush() {
        io.sync {
            if journal >= 0 { fsync(journal) }
            archive?.sync()
        }
    }

    // MARK: - Reading

    /// Finishes a history page that `picker` began with the jobs in memory: adds the archive's jobs
    /// and calls `reply` with the page on a global queue. The archive is seen as it is once every
    /// `forget` sent before this call was written (the hop through `io`), so a job is in memory or
    /// in the archive, never in neither; and a page is answered only after every state change
    /// recorded before it is in the journal. Thread: any; never waits.
    func page(_ picker: HistoryPicker, reply: @escaping @Sendable (HistoryPage) -> Void) {
        io.async { [self] in
            let view = archive?.view()
            let (summaries, report) = (summaries, log)
            DispatchQueue.global(qos: .userInitiated).async {
                var picker = picker
                if let view { HistoryArchive.read(view, into: &picker, summaries: summaries, report: report) }
                reply(picker.page())
            }
        }
    }

    /// The archived record of a job that left memory, or nil; `reply` runs on a global queue. Like
    /// `page`, it sees the archive once every `forget` sent before it was written, so a job the
    /// dispatcher no longer holds is found here. Thread: any; never waits.
    func find(_ id: JobID, reply: @escaping @Sendable (JobRecord?) -> Void) {
        io.async { [self] in
            let view = archive?.view()
            DispatchQueue.global(qos: .userInitiated).async {
                reply(view.flatMap { HistoryArchive.find(id, in: $0) })
            }
        }
    }

    /// The sizes the bounds are about, for tests and tools: the journal's bytes now, and each
    /// archive segment's. Thread: any but `io`; waits for `io`.
    func diskUsage() -> (journalBytes: Int, compactions: Int, archiveSegments: [Int: Int]) {
        io.sync {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: archiveFolder.path)) ?? []
            var segments: [Int: Int] = [:]
            for name in names {
                guard let number = HistoryArchive.number(name) else { continue }
                let size =
                    (try? FileManager.default.attributesOfItem(atPath: archiveFolder.appendingPathComponent(name).path)[.size]) as? Int
                segments[number] = size ?? 0
            }
            return (journalBytes, compactions, segments)
        }
    }
}
