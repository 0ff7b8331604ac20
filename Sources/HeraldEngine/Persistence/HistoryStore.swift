import Dispatch
import Foundation

/// Job history on disk: `jobs.jsonl` in the data directory, one job object per line, appended at
/// every state change; the last line for an id wins.
///
/// Threads: `load` runs once at start-up before any other call; `record`, `forget` and `flush` may be
/// called from any thread (the dispatcher queue) and hop onto `io`, which alone touches the file.
public final class HistoryStore: @unchecked Sendable {
    // @unchecked Sendable: `handle` is only touched on `io` (or in `load`, before sharing); `problems`
    // only in `load`, which runs once before the store is shared.
    public let fileURL: URL
    private let io = DispatchQueue(label: "herald.history")
    private var handle: FileHandle?
    /// What `load` had to report: a file set aside, lines that could not be read.
    public private(set) var problems: [String] = []
    private let log: @Sendable (String) -> Void

    public init(directory: URL, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.fileURL = directory.appendingPathComponent("jobs.jsonl")
        self.log = log
    }

    /// Reads history, marks jobs that were unfinished as `interrupted`, and rewrites the file compactly.
    /// A file with unreadable lines is kept beside it as `jobs.jsonl.corrupt-<time>`, never deleted.
    public func load() -> [JobRecord] {
        let manager = FileManager.default
        try? manager.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        var records: [JobID: JobRecord] = [:]
        var order: [JobID] = []
        if let data = manager.contents(atPath: fileURL.path) {
            var bad = 0
            for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
                guard let value = try? JSONParser.parse(Array(line), maxDepth: 64), let record = JobRecord(json: value) else {
                    bad += 1
                    continue
                }
                if records[record.id] == nil { order.append(record.id) }
                records[record.id] = record
            }
            if bad > 0 {
                let aside = fileURL.appendingPathExtension("corrupt-\(Int(Date().timeIntervalSince1970))-\(UUID().uuidString.prefix(8))")
                let problem: String
                do {
                    try manager.copyItem(at: fileURL, to: aside)
                    problem =
                        "history: \(bad) unreadable line(s) in \(fileURL.path); the file was kept as \(aside.lastPathComponent) and the readable jobs loaded"
                } catch {
                    // Without a copy aside, rewriting would lose the unreadable lines: leave the file as it is.
                    problem =
                        "history: \(bad) unreadable line(s) in \(fileURL.path) and no copy could be made (\(error.localizedDescription)); the file is left untouched and history will not persist"
                    problems.append(problem)
                    log(problem)
                    return order.compactMap { records[$0] }.map(Self.markedInterrupted)
                }
                problems.append(problem)
                log(problem)
            }
        }
        let loaded = order.compactMap { records[$0] }.map(Self.markedInterrupted)
        if let problem = rewrite(loaded) {
            problems.append(problem)
            log(problem)
        }
        return loaded
    }

    /// A job that was unfinished when the process stopped is `interrupted` now; the lifecycle refuses
    /// the move for a finished one, which is kept as it was.
    private static func markedInterrupted(_ record: JobRecord) -> JobRecord {
        var marked = record
        guard (try? marked.move(to: .interrupted)) != nil else { return record }
        marked.error = "the server stopped while this job was \(record.state.rawValue)"
        marked.finishedAt = record.finishedAt ?? Int64(Date().timeIntervalSince1970 * 1000)
        return marked
    }

    /// Replaces the file atomically with one line per job, then appends from there. Returns what
    /// went wrong, if anything. Thread: `load` (before sharing) or `io`.
    private func rewrite(_ records: [JobRecord]) -> String? {
        var text: [UInt8] = []
        for record in records {
            JSONWriter.write(record.json, into: &text)
            text.append(UInt8(ascii: "\n"))
        }
        do {
            try AtomicFile.write(Data(text), to: fileURL)
            handle = try FileHandle(forWritingTo: fileURL)
            try handle?.seekToEnd()
            return nil
        } catch {
            handle = nil
            return "history: cannot write \(fileURL.path): \(error.localizedDescription); history will not persist"
        }
    }

    /// Appends a job's current state. Thread: any.
    public func record(_ record: JobRecord) {
        var encoded = JSONWriter.encode(record.json)
        encoded.append(UInt8(ascii: "\n"))
        let line = encoded
        io.async { [self] in
            do { try handle?.write(contentsOf: Data(line)) } catch { log("history: write failed: \(error.localizedDescription)") }
        }
    }

    /// Drops forgotten jobs from the file (by compaction) so it does not grow without bound.
    public func forget(_ ids: Set<JobID>) {
        io.async { [self] in
            guard let data = FileManager.default.contents(atPath: fileURL.path) else { return }
            var latest: [JobID: JobRecord] = [:]
            var order: [JobID] = []
            for line in data.split(separator: UInt8(ascii: "\n")) {
                guard let value = try? JSONParser.parse(Array(line), maxDepth: 64), let record = JobRecord(json: value),
                    !ids.contains(record.id)
                else { continue }
                if latest[record.id] == nil { order.append(record.id) }
                latest[record.id] = record
            }
            try? handle?.close()
            if let problem = rewrite(order.compactMap { latest[$0] }) { log(problem) }
        }
    }

    /// Waits until every record so far is written and synced. Thread: any but `io`.
    public func flush() {
        io.sync { try? handle?.synchronize() }
    }
}
