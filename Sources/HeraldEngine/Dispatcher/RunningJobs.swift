import Dispatch

/// The jobs running now and what waits on them: each run's context and progress pacing, the cancels
/// asked for, the retries waiting for their time (with the log their next attempt writes on), and
/// the callers of `shutdown` waiting for the last run to end. A plain value owned by the dispatcher
/// queue.
struct RunningJobs {
    /// A job on a worker: its context and the coalescer that paces its progress events.
    struct Run {
        let context: JobContext
        var coalescer: ProgressCoalescer
        /// Clock time.
        let started: Double
    }

    /// A retrying job's wait: when it may run again (clock time) and the timer that pumps then.
    private struct Retry {
        var due: Double
        let timer: any ScheduledTimer
        var log: LogKeeper?
    }

    /// Where one more job of a kind would run now.
    enum Slot {
        case worker(WorkerSession)
        case here
    }

    private var runs: [JobID: Run] = [:]
    private(set) var cancelRequested: Set<JobID> = []
    private var retries: [JobID: Retry] = [:]
    private var idleWaiters: [DispatchSemaphore] = []

    subscript(id: JobID) -> Run? {
        get { runs[id] }
        set { runs[id] = newValue }
    }

    var isEmpty: Bool { runs.isEmpty }
    var count: Int { runs.count }
    var ids: Dictionary<JobID, Run>.Keys { runs.keys }
    var all: Dictionary<JobID, Run>.Values { runs.values }
    /// Progress samples the runs' coalescers held back.
    var heldBack: Int { runs.values.reduce(0) { $0 + $1.coalescer.heldBack } }

    mutating func begin(_ id: JobID, _ run: Run) {
        runs[id] = run
    }

    /// Removes an ended run: it, and whether a cancel had been asked for.
    mutating func end(_ id: JobID) -> (run: Run, wasCancelled: Bool)? {
        guard let run = runs.removeValue(forKey: id) else { return nil }
        return (run, cancelRequested.remove(id) != nil)
    }

    /// Notes a cancel and tells a local run; a remote run is told by the caller.
    mutating func requestCancel(_ id: JobID) {
        cancelRequested.insert(id)
        runs[id]?.context.requestCancel()
    }

    /// A place for one more job of `kind` within its limit: a remote worker with a free slot that runs
    /// it first, else here while local workers (`localWorkers`, less the runs held remotely) are free
    /// and the kind runs here; nil when there is none.
    func slot(for kind: JobKind, limit: Int, localWorkers: Int, runsLocally: Bool, pool: WorkerPool) -> Slot? {
        guard runs.values.count(where: { $0.context.kind == kind }) < limit else { return nil }
        if let session = pool.pick(kind) { return .worker(session) }
        if runs.count - pool.heldCount < localWorkers, runsLocally { return .here }
        return nil
    }

    // MARK: Retries

    /// A failed attempt waits until `due`; `timer` says when the wait is over; `log` is what its
    /// next attempt writes on.
    mutating func waitForRetry(_ id: JobID, due: Double, timer: any ScheduledTimer, log: LogKeeper?) {
        retries[id] = Retry(due: due, timer: timer, log: log)
    }

    /// The timer fired: the retry may launch, whatever the clock reads (a Dispatch timer may fire a
    /// hair before the clock reads the due time).
    mutating func retryIsDue(_ id: JobID) { retries[id]?.due = -.infinity }

    func isWaitingForRetry(_ id: JobID, now: Double) -> Bool { retries[id].map { $0.due > now } ?? false }

    /// Ends a retry's wait (it launches, or it is cancelled): its timer stops; its kept log, if any.
    mutating func endRetry(_ id: JobID) -> LogKeeper? {
        guard let retry = retries.removeValue(forKey: id) else { return nil }
        retry.timer.cancel()
        return retry.log
    }

    /// The log of earlier attempts of a job waiting for a retry.
    func logWaitingForRetry(_ id: JobID) -> LogKeeper? { retries[id]?.log }

    // MARK: Idle

    /// `waiter` is signalled when no run is left.
    mutating func signalWhenIdle(_ waiter: DispatchSemaphore) { idleWaiters.append(waiter) }

    /// No run is left: the waiters are signalled.
    mutating func becameIdle() {
        for waiter in idleWaiters { waiter.signal() }
        idleWaiters = []
    }
}
