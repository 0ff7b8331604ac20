import Synchronization

/// Where a running job writes its progress, from any of its threads, as often as it likes.
///
/// Threads: `report`/`add` run on worker threads; `sample` runs on the dispatcher queue. The numbers
/// are atomics, so a report is two relaxed stores (a few nanoseconds) and never waits for a lock or
/// the dispatcher; the dispatcher samples them at its own pace, which is what coalescing means here.
/// The message changes rarely (a phase name), so it sits behind a mutex.
public final class ProgressReporter: Sendable {
    private let completed = Atomic<Int64>(0)
    private let total = Atomic<Int64>(0)
    private let message = Protected<String?>(nil)
    private let hasReported = Atomic<Bool>(false)
    /// Runs once, on the first report, so that the first value reaches clients at once.
    private let onFirstReport: @Sendable () -> Void

    init(onFirstReport: @escaping @Sendable () -> Void) {
        self.onFirstReport = onFirstReport
    }

    /// Sets both numbers. Thread: any.
    @inline(__always)
    public func report(completed: Int64, total: Int64) {
        self.total.store(total, ordering: .relaxed)
        self.completed.store(completed, ordering: .relaxed)
        noteReport()
    }

    /// Sets the numbers and the words. Thread: any; takes a lock, so call it when the words change.
    public func report(completed: Int64, total: Int64, message: String?) {
        self.message.withLock { $0 = message }
        report(completed: completed, total: total)
    }

    /// Sets the total alone, for a job that learns its size before it starts counting. Thread: any.
    public func setTotal(_ total: Int64) {
        self.total.store(total, ordering: .relaxed)
        noteReport()
    }

    /// Adds to `completed`: several threads of one job can count into the same bar. Thread: any.
    @inline(__always)
    public func add(_ units: Int64) {
        completed.wrappingAdd(units, ordering: .relaxed)
        noteReport()
    }

    @inline(__always)
    private func noteReport() {
        // One relaxed load in the common case; the exchange happens once per job.
        if !hasReported.load(ordering: .relaxed), !hasReported.exchange(true, ordering: .relaxed) {
            onFirstReport()
        }
    }

    /// The latest values. Thread: the dispatcher queue.
    func sample() -> JobProgress {
        JobProgress(
            completed: completed.load(ordering: .relaxed), total: total.load(ordering: .relaxed),
            message: message.withLock { $0 })
    }

    var hasAnyReport: Bool { hasReported.load(ordering: .relaxed) }
}
