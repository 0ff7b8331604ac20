import HeraldAccess
import Dispatch
import Foundation

/// The audit trail on disk, kept like the job history (docs/operations.md): `audit.jsonl` in the data
/// folder is the current segment, one `AuditEvent` per line, appended with whole lines; at
/// `limits.segmentJobs` events or `limits.segmentBytes` bytes it is renamed into
/// `audit/audit-<n>.jsonl` and a new one begins; closed segments beyond `limits.closedSegmentsKept`
/// are deleted, oldest first (`HistoryLimits`, read as events: at least `archivedJobs` are kept).
///
/// Crash safety: a crash in the middle of an append leaves a torn last line, which `open` cuts off
/// (and reports) and readers skip. A write that fails (a full disk) is cut back to the last whole
/// line and its events wait in memory (at most one segment's worth, the oldest dropped first), retried
/// at the next append and every `retryInterval` seconds; `health` says so, as for the history.
///
/// On a cluster node each event is also handed to a `mirror` (the cluster's shared audit stream in
/// Redis) once it is written here or waits in memory for the disk: the local file comes first.
///
/// Threads: `open` runs once, before anything else. `append`, `page` and `flush` may be called from
/// any thread (the hub's service thread) and hop onto `io`, which alone touches the files and the
/// state below; `page` then reads on a global queue, so no caller waits for the disk.
public final class AuditTrail: @unchecked Sendable {
    // @unchecked Sendable: every `var` below is only touched on `io` (`open` runs there, through `io.sync`).
    public let fileURL: URL
    public let limits: HistoryLimits
    public let health: StorageHealth
    let retryInterval: Double
    private let folder: URL
    private let io = DispatchQueue(label: "herald.audit")
    private let log: @Sendable (String) -> Void

    // Confined to `io`:
    private var descriptor: Int32 = -1
    /// The current segment's number: one more than the newest closed one.
    private var current = 1
    private var currentEvents = 0
    private var currentBytes = 0
    private var closed: [Int] = []
    private var unwritten: [[UInt8]] = []
    private var retryScheduled = false
    private var syncScheduled = false
    /// Set once at start (`share`); read on `io` and by the routes on the service thread, which must
    /// not wait behind a slow disk on `io`: so a lock of its own.
    private let mirror = Protected<(any AuditMirror)?>(nil)

    /// `directory`: the data folder. The default limits keep at least 100,000 events in segments of
    /// at most 2,000 events or 1 MiB.
    public init(
        directory: URL, limits: HistoryLimits = HistoryLimits(archivedJobs: 100_000, maxSegmentJobs: 2_000, segmentBytes: 1 << 20),
        retryInterval: Double = 5, health: StorageHealth? = nil, log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.fileURL = directory.appendingPathComponent("audit.jsonl")
        self.folder = directory.appendingPathComponent("audit")
        self.limits = limits
        self.retryInterval = retryInterval
        self.health = health ?? StorageHealth(log: log)
        self.log = log
    }

    deinit {
        // Nothing else holds the trail any more (every `io` block held it), so no queue is needed.
        if descriptor >= 0 { close(descriptor) }
    }

    static func segmentName(_ number: Int) -> String { "audit-" + String(format: "%08d", number) + ".jsonl" }

    static func segmentNumber(_ name: String) -> Int? {
        guard name.hasPrefix("audit-"), name.hasSuffix(".jsonl") else { return nil }
        let digits = name.dropFirst("audit-".count).dropLast(".jsonl".count)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(digits)
    }

    /// Finds the segments, deletes those beyond the bound, cuts a torn last line off `audit.jsonl` and
    /// opens it for appending. Returns what it had to report (also logged). Thread: any, once.
    @discardableResult
    public func open() -> [String] {
        io.sync { openOnIO() }
    }

    private func openOnIO() -> [String] {
        var problems: [String] = []
        let report = { (problem: String) in
            problems.append(problem)
            self.log(problem)
        }
        closed = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).compactMap(Self.segmentNumber).sorted()
        deleteBeyondBound()
        current = (closed.last ?? 0) + 1
        var bytes = FileManager.default.contents(atPath: fileURL.path).map { [UInt8]($0) } ?? []
        if let last = bytes.last, last != UInt8(ascii: "\n") {
            let keep = (bytes.lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
            if truncate(fileURL.path, off_t(keep)) == 0 {
                report(
                    "audit: dropped a torn last line (\(bytes.count - keep) bytes) at the end of audit.jsonl, left by a crash while it was written"
                )
                bytes.removeSubrange(keep...)
            } else {
                report("audit: cannot cut the torn last line of \(fileURL.path): \(String(cString: strerror(errno)))")
            }
        }
        currentBytes = bytes.count
        currentEvents = bytes.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        descriptor = Glibc.open(fileURL.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            report("audit: cannot open \(fileURL.path): \(String(cString: strerror(errno))); audit events wait in memory")
            health.failed("audit", path: fileURL.path, String(cString: strerror(errno)))
        }
        return problems
    }

    /// From now on every event appended (and any the trail has not written yet) is also handed to
    /// `mirror`. Thread: any; once, at start.
    public func share(with mirror: any AuditMirror) {
        self.mirror.withLock { $0 = mirror }
    }

    /// The mirror events are shared with, if any (a cluster node's). Thread: any.
    public var sharedWith: (any AuditMirror)? {
        mirror.withLock { $0 }
    }

    // MARK: - Writing

    /// Appends one event (a whole line). Thread: any; never waits.
    public func append(_ event: AuditEvent) {
        let line = JSONWriter.encode(event.json) + [UInt8(ascii: "\n")]
        io.async { [self] in
            unwritten.append(line)
            if unwritten.count > limits.segmentJobs { unwritten.removeFirst(unwritten.count - limits.segmentJobs) }
            writeUnwritten()
            mirror.withLock { $0 }?.appendAudit(event)
        }
    }

    /// Writes the waiting lines in order, rotating as the limits say. Thread: `io`.
    private func writeUnwritten() {
        while let line = unwritten.first {
            if limits.mustRotate(jobs: currentEvents, bytes: currentBytes, adding: line.count) { rotate() }
            if descriptor < 0 { descriptor = Glibc.open(fileURL.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600) }
            do {
                guard descriptor >= 0 else { throw OpenFailure(reason: String(cString: strerror(errno))) }
                try line.withUnsafeBytes { try AtomicFile.writeAll(descriptor, $0) }
            } catch {
                // Cut back to the last whole line, so the file is as it was.
                if descriptor >= 0 { ftruncate(descriptor, off_t(currentBytes)) }
                health.failed("audit", path: fileURL.path, "\(error)")
                scheduleRetry()
                return
            }
            unwritten.removeFirst()
            currentEvents += 1
            currentBytes += line.count
            scheduleSync()
        }
        health.succeeded("audit")
    }

    private struct OpenFailure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot open: \(reason)" }
    }

    /// Closes `audit.jsonl` into `audit/` under its number; the next write starts a new one. When the
    /// rename fails, the current file simply grows on (a later rotation tries again). Thread: `io`.
    private func rotate() {
        do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch { return }
        if descriptor >= 0 {
            fsync(descriptor)
            Glibc.close(descriptor)
            descriptor = -1
        }
        guard rename(fileURL.path, folder.appendingPathComponent(Self.segmentName(current)).path) == 0 else { return }
        for path in [folder.path, fileURL.deletingLastPathComponent().path] {
            let folderDescriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folderDescriptor >= 0 {
                fsync(folderDescriptor)
                Glibc.close(folderDescriptor)
            }
        }
        closed.append(current)
        current += 1
        (currentEvents, currentBytes) = (0, 0)
        deleteBeyondBound()
    }

    private func deleteBeyondBound() {
        for number in limits.segmentsToDelete(closed: closed) {
            unlink(folder.appendingPathComponent(Self.segmentName(number)).path)
            closed.removeAll { $0 == number }
        }
    }

    private func scheduleRetry() {
        guard !retryScheduled else { return }
        retryScheduled = true
        io.asyncAfter(deadline: .now() + retryInterval) { [self] in
            retryScheduled = false
            writeUnwritten()
        }
    }

    /// Lines reach the disk within about a second even without a `flush`.
    private func scheduleSync() {
        guard !syncScheduled else { return }
        syncScheduled = true
        io.asyncAfter(deadline: .now() + 1) { [self] in
            syncScheduled = false
            if descriptor >= 0 { fsync(descriptor) }
        }
    }

    /// Waits until every event appended so far is written (or waits in memory) and synced.
    /// Thread: any but `io`.
    public func flush() {
        io.sync {
            if descriptor >= 0 { fsync(descriptor) }
        }
    }

    // MARK: - Reading

    /// The newest `limit` events older than `before` (all when nil), newest first; `reply` runs on a
    /// global queue. Events still waiting for a full disk are not in it yet. Thread: any; never waits.
    public func page(limit: Int, before: AuditCursor? = nil, reply: @escaping @Sendable (AuditPage) -> Void) {
        io.async { [self] in
            let view = AuditReader(
                fileURL: fileURL, folder: folder, current: current, currentBytes: currentBytes, closed: closed)
            DispatchQueue.global(qos: .userInitiated).async {
                reply(view.page(limit: limit, before: before))
            }
        }
    }

    /// `page` for tools and tests: waits for the answer. Thread: any but `io`.
    public func page(limit: Int, before: AuditCursor? = nil) -> AuditPage {
        let view = io.sync { AuditReader(fileURL: fileURL, folder: folder, current: current, currentBytes: currentBytes, closed: closed) }
        return view.page(limit: limit, before: before)
    }
}
