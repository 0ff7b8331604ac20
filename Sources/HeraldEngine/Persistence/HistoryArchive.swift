import Foundation

/// The archive of jobs that left memory: `archive-<n>.jsonl` segments in the data folder's
/// `history/`, one final job object per line, rotated by `HistoryLimits`. The highest number is
/// the current segment, the only one appended to; the others are closed and never change until
/// they are deleted, oldest first.
///
/// Crash safety: a batch of jobs is appended with whole lines; a crash can leave a torn last line,
/// which `open` cuts off (and reports) before anything is appended again. A write that fails (a
/// full disk) is cut back to the last whole line at once, and its jobs wait in memory, in order,
/// until a later append or `retry` writes them. A segment is fsynced when it is closed, and the
/// store syncs the current one about once a second.
///
/// Threads: the value is owned by the history store's `io` queue (every mutating call runs there);
/// `view()` is taken there too, and `read(_:into:summaries:report:)` runs on any thread with it.
struct HistoryArchive {
    let folder: URL
    let limits: HistoryLimits
    /// Closed segments' key ranges, shared with readers.
    let summaries: Summaries
    /// Closed segments, ascending.
    private(set) var closed: [Int] = []
    /// The current segment's number; 0 before the first is made.
    private(set) var current = 0
    private(set) var currentJobs = 0
    private(set) var currentBytes = 0
    /// The oldest and newest keys in the current segment; nil while it is empty.
    private(set) var currentKeys: ClosedRange<HistoryCursor>?
    private var descriptor: Int32 = -1
    /// Jobs that could not be written yet (a full disk), oldest first; at most `archivedJobs`.
    private var unwritten: [(key: HistoryCursor, line: [UInt8])] = []

    static func name(_ number: Int) -> String { "archive-" + String(format: "%08d", number) + ".jsonl" }

    /// The segment number in a file name made by `name`, else nil.
    static func number(_ name: String) -> Int? {
        guard name.hasPrefix("archive-"), name.hasSuffix(".jsonl") else { return nil }
        let digits = name.dropFirst("archive-".count).dropLast(".jsonl".count)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(digits)
    }

    /// Finds the segments, deletes those beyond the bound, and prepares the current one for
    /// appending: a torn last line is cut off, its jobs are counted and its keys learnt. With
    /// `archivedJobs` 0 every segment is deleted. Problems go to `report`; none is fatal.
    static func open(folder: URL, limits: HistoryLimits, summaries: Summaries, report: (String) -> Void) -> HistoryArchive {
        var archive = HistoryArchive(folder: folder, limits: limits, summaries: summaries)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var numbers = names.compactMap(number).sorted()
        if limits.archivedJobs == 0 {
            for number in numbers { archive.delete(number) }
            if !numbers.isEmpty { report("history: the archive is off (--history-jobs 0): \(numbers.count) segment(s) deleted") }
            return archive
        }
        guard let last = numbers.popLast() else { return archive }
        archive.closed = numbers
        archive.deleteBeyondBound()
        archive.current = last
        archive.adopt(report: report)
        return archive
    }

    /// Reads the current segment as it was left: cuts a torn last line, counts and learns keys,
    /// and opens it for appending.
    private mutating func adopt(report: (String) -> Void) {
        let url = folder.appendingPathComponent(Self.name(current))
        var bytes = (FileManager.default.contents(atPath: url.path)).map { [UInt8]($0) } ?? []
        if let lastByte = bytes.last, lastByte != UInt8(ascii: "\n") {
            let keep = (bytes.lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
            if truncate(url.path, off_t(keep)) == 0 {
                report(
                    "history: dropped a torn last line (\(bytes.count - keep) bytes) at the end of \(Self.name(current)), left by a crash while it was written"
                )
                bytes.removeSubrange(keep...)
            } else {
                report(
                    "history: cannot cut the torn last line of \(url.path): \(String(cString: strerror(errno))); a new segment is started")
                closed.append(current)
                return
            }
        }
        let contents = Self.records(in: bytes[...])
        if contents.unreadable > 0 {
            report("history: \(contents.unreadable) unreadable line(s) in \(Self.name(current)) are skipped")
        }
        currentJobs = contents.records.count
        currentBytes = bytes.count
        currentKeys = contents.keys
        descriptor = Glibc.open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            report("history: cannot open \(url.path): \(String(cString: strerror(errno))); a new segment is started")
            closed.append(current)
        }
    }

    /// Appends jobs that left memory, oldest first, each a whole line (`\n` included), rotating
    /// segments as the limits say. Jobs that cannot be written now wait, in order, for the next
    /// append or `retry`; at most `archivedJobs` wait (the oldest go first, as rotation would have
    /// deleted them). Returns why writing failed, or nil when nothing waits. Thread: `io`.
    mutating func append(_ entries: [(key: HistoryCursor, line: [UInt8])]) -> String? {
        guard limits.archivedJobs > 0 else { return nil }
        unwritten += entries
        let problem = writeUnwritten()
        if unwritten.count > limits.archivedJobs { unwritten.removeFirst(unwritten.count - limits.archivedJobs) }
        return problem
    }

    /// Tries again to write the jobs that wait. Thread: `io`.
    mutating func retry() -> String? { writeUnwritten() }

    var hasUnwritten: Bool { !unwritten.isEmpty }

    private mutating func writeUnwritten() -> String? {
        var written = 0
        defer { unwritten.removeFirst(written) }
        while written < unwritten.count {
            if descriptor < 0, let problem = startNewSegment() { return problem }
            var (jobs, bytes, keys) = (currentJobs, currentBytes, currentKeys)
            var pending: [UInt8] = []
            var end = written
            while end < unwritten.count {
                let (key, line) = unwritten[end]
                if jobs > 0, limits.mustRotate(jobs: jobs, bytes: bytes, adding: line.count) { break }
                pending += line
                jobs += 1
                bytes += line.count
                keys = keys.map { min($0.lowerBound, key)...max($0.upperBound, key) } ?? key...key
                end += 1
            }
            guard end > written else {
                rotate()
                continue
            }
            do { try pending.withUnsafeBytes { try AtomicFile.writeAll(descriptor, $0) } } catch {
                // Cut back to the last whole line, so the file is as it was.
                ftruncate(descriptor, off_t(currentBytes))
                return "\(error)"
            }
            (currentJobs, currentBytes, currentKeys) = (jobs, bytes, keys)
            written = end
        }
        return nil
    }

    /// Closes the current segment (synced, its keys known to readers); the next write starts the next.
    private mutating func rotate() {
        if descriptor >= 0 {
            fsync(descriptor)
            Glibc.close(descriptor)
            descriptor = -1
        }
        summaries.store(current, Summary(keys: currentKeys))
        closed.append(current)
        deleteBeyondBound()
        (currentJobs, currentBytes, currentKeys) = (0, 0, nil)
    }

    /// Makes the next segment and opens it; a number whose file could not be made is used again.
    /// Returns why it could not be made, if it could not.
    private mutating func startNewSegment() -> String? {
        if current <= (closed.last ?? 0) { current = (closed.last ?? 0) + 1 }
        (currentJobs, currentBytes, currentKeys) = (0, 0, nil)
        do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
            return "cannot make \(folder.path): \(error.localizedDescription)"
        }
        let path = folder.appendingPathComponent(Self.name(current)).path
        descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return "cannot create \(path): \(String(cString: strerror(errno)))" }
        // The new name must survive a power loss as well as the lines that go into it.
        let folderDescriptor = Glibc.open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            Glibc.close(folderDescriptor)
        }
        return nil
    }

    private mutating func deleteBeyondBound() {
        for number in limits.segmentsToDelete(closed: closed) { delete(number) }
    }

    private mutating func delete(_ number: Int) {
        unlink(folder.appendingPathComponent(Self.name(number)).path)
        closed.removeAll { $0 == number }
        summaries.remove(number)
    }

    /// Pushes appended lines to the disk. Thread: `io`.
    func sync() {
        if descriptor >= 0 { fsync(descriptor) }
    }

    mutating func close() {
        if descriptor >= 0 {
            fsync(descriptor)
            Glibc.close(descriptor)
        }
        descriptor = -1
    }

    /// What a reader needs, as of now: the segments, how much of the current one is whole, and the
    /// jobs waiting to be written (so a job that left memory during a full disk is still found).
    /// A current segment already closed (its successor could not be made yet) is read as closed.
    func view() -> View {
        let isOpen = current > (closed.last ?? 0)
        return View(
            folder: folder, closed: closed, current: isOpen ? current : 0, currentBytes: isOpen ? currentBytes : 0,
            currentKeys: isOpen ? currentKeys : nil, waiting: unwritten.map(\.line))
    }
}
