import Dispatch
import HeraldSupport
import Synchronization

/// How running jobs reach the dispatcher from their worker threads (`JobEventSink`): each report
/// hops onto the dispatcher queue, and the hops are bounded, so a job that reports faster than the
/// dispatcher numbers its events waits in `emitResults` instead of growing the queue without end.
/// A ticker's uncoalesced progress hops once per batch, not once per value.
///
/// Thread: the report calls run on worker threads; the blocks they queue run on the dispatcher
/// queue. `hops`, `inFlight` and `pending` are safe from any thread.
final class WorkerIntake: JobEventSink {
    /// Most uncoalesced progress hops allowed in flight before a ticker is told to slow down.
    static let uncoalescedLimit = 4096

    /// Unowned: the dispatcher owns the intake; each hop holds the dispatcher until it has run.
    private unowned let jobs: JobLifecycle
    /// Result, news and log hops queued but not yet run.
    private let hops = HopGate(limit: 1024)
    /// Uncoalesced progress values queued but not yet numbered (ticker back-pressure).
    private let inFlight = Atomic<Int>(0)
    /// Ticker progress waiting for its batch's one hop.
    private let pending = Protected<[(JobID, JobProgress)]>([])

    init(_ jobs: JobLifecycle) {
        self.jobs = jobs
    }

    /// Runs `body` on the dispatcher queue once the hop bound allows. Thread: a worker thread.
    private func hop(_ body: @escaping @Sendable (JobLifecycle) -> Void) {
        hops.enter()
        let jobs = jobs
        jobs.queue.async { [hops] in
            defer { hops.leave() }
            body(jobs)
        }
    }

    func results(job: JobID, items: [JSONValue]) {
        hop { jobs in
            guard jobs.runs[job] != nil else { return }
            jobs.keepAndEmitResults(job: job, items: items)
        }
    }

    func news(job: JobID, headlines: [String]) {
        hop { jobs in
            // A fetch that was cancelled meanwhile publishes nothing.
            guard jobs.runs[job] != nil, !jobs.runs.cancelRequested.contains(job) else { return }
            let added = jobs.news.append(headlines, at: WallClock.millis())
            jobs.emit(.news(revision: jobs.news.revision, items: added))
        }
    }

    func log(job: JobID, lines: [LogLine], skipped: Int, first: Int) {
        hop { jobs in
            guard jobs.runs[job] != nil else { return }
            jobs.emit(.log(job: job, lines: lines, skipped: skipped, first: first))
        }
    }

    /// One hop onto the queue per batch: values wait in `pending`, and the first value of a batch
    /// schedules the hop that numbers them all. False: too many in flight, the ticker slows down.
    func uncoalescedProgress(job: JobID, _ progress: JobProgress) -> Bool {
        guard inFlight.add(1, ordering: .relaxed).newValue <= Self.uncoalescedLimit else {
            inFlight.subtract(1, ordering: .relaxed)
            return false
        }
        pending.withLock { pending in
            pending.append((job, progress))
            // The batch's hop is queued under the lock, so every later value is appended after the
            // hop that numbers it was queued, and before its thread queues its job's `finish`. Queued
            // outside, a thread preempted in between let other tickers append, return and finish
            // first, and the hop then dropped their values as those of ended runs.
            if pending.count == 1 {
                let jobs = jobs
                jobs.queue.async { [self] in emitPending(jobs) }
            }
        }
        return true
    }

    /// Thread: the dispatcher queue. A batch is nearly always one job's values: the job is looked up
    /// once per run of values of the same job, and its record takes the last of them (nothing reads
    /// the record between these emits), instead of two dictionary lookups per value.
    private func emitPending(_ jobs: JobLifecycle) {
        let batch = pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        inFlight.subtract(batch.count, ordering: .relaxed)
        var start = batch.startIndex
        while start < batch.endIndex {
            let job = batch[start].0
            var end = start + 1
            while end < batch.endIndex, batch[end].0 == job { end += 1 }
            if jobs.runs[job] != nil {
                for (_, progress) in batch[start..<end] { jobs.emit(.progress(job: job, progress)) }
                jobs.statistics.progressEvents += end - start
                jobs.table[job]?.progress = batch[end - 1].1
            }
            start = end
        }
    }
}
