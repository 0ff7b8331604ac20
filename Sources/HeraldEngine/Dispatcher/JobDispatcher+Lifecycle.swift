import Dispatch
import Foundation
import HeraldSupport

/// Starting, scheduling, cancelling and finishing jobs. Every function here runs on `queue`.
extension JobDispatcher {
    func startOnQueue(_ request: StartRequest) -> Result<JobRecord, EngineError> {
        dispatchPrecondition(condition: .onQueue(queue))
        if let refusal = requestIdRefusal(request) { return .failure(refusal) }
        if let requestId = request.requestId, let record = table.job(forRequest: requestId) {
            return .success(record)
        }
        let params: JSONObject
        switch checkedParams(request) {
        case .success(let checked): params = checked
        case .failure(let refusal): return .failure(refusal)
        }
        let kind = JobKind(request.kind)

        var after: [JobID] = []
        for text in request.after {
            let id = JobID(text)
            guard table[id] != nil || cluster.foreignStates[id] != nil else {
                return .failure(.badRequest(field: "after", "unknown job \(text)"))
            }
            if !after.contains(id) { after.append(id) }
        }
        // A new job can only name jobs that already exist, so a cycle cannot be formed.
        let limit = configuration.limit(for: kind)
        if limit.refuseWhenBusy {
            let active = table.unfinished(of: kind)
            if active.count >= limit.maxConcurrent, let first = active.first {
                return .failure(
                    EngineError(.busy, "a \(kind.rawValue) is already \(first.state.rawValue) (\(first.id)); wait for it or cancel it"))
            }
        }

        let record = JobRecord(
            id: request.id ?? JobID.random(), kind: kind, params: params, after: after, requestId: request.requestId,
            createdAt: WallClock.millis(), node: configuration.nodeName)
        table.insert(record)
        if let requestId = request.requestId { table.remember(requestId: requestId, for: record.id) }
        emit(.job(record))
        if !after.isEmpty { _ = transition(record.id, to: .waiting) }
        resolveDependents()
        pump()
        forgetOldJobs()
        return .success(table[record.id] ?? record)
    }

    /// Why a start's `requestId` is refused, if it is. Thread: `queue`.
    func requestIdRefusal(_ request: StartRequest) -> EngineError? {
        guard let requestId = request.requestId, requestId.isEmpty || requestId.utf8.count > 128 else { return nil }
        return .badRequest(field: "requestId", "must be 1 to 128 bytes")
    }

    /// What every start must pass before a job is made (the server takes jobs, the kind is offered,
    /// its params are valid): the params normalised, or the refusal. Thread: `queue`.
    func checkedParams(_ request: StartRequest) -> Result<JSONObject, EngineError> {
        guard !isShuttingDown else { return .failure(EngineError(.shuttingDown, "the server is shutting down")) }
        let kind = JobKind(request.kind)
        guard kind != .ticker || configuration.enableTicker, let runner = runners[kind] else {
            let known = runners.keys.filter { $0 != .ticker || configuration.enableTicker }.map(\.rawValue).sorted()
            return .failure(
                EngineError(.unknownKind, "unknown job kind \"\(request.kind)\"; known kinds: \(known.joined(separator: ", "))"))
        }
        do throws(EngineError) {
            return .success(try runner.validate(request.params, environment: environment))
        } catch {
            return .failure(error)
        }
    }

    func cancelOnQueue(_ text: String) -> Result<JobRecord, EngineError> {
        dispatchPrecondition(condition: .onQueue(queue))
        let id = JobID(text)
        guard let record = table[id] else { return .failure(EngineError(.notFound, "no job \(text)")) }
        switch record.state {
        case .queued, .waiting:
            let cancelled = finishWithoutRunning(id, state: .cancelled, reason: "cancelled by request")
            resolveDependents()
            pump()
            return .success(cancelled ?? record)
        case .running:
            requestCancel(id)
            return .success(record)
        case .succeeded, .failed, .cancelled, .interrupted:
            return .failure(EngineError(.notCancellable, "job \(text) already ended \(record.state.rawValue)"))
        }
    }

    /// Moves a job and emits its new state. Returns the record, or nil when the move is refused.
    @discardableResult
    func transition(_ id: JobID, to state: JobState, mutate: (inout JobRecord) -> Void = { _ in }) -> JobRecord? {
        guard var record = table[id] else { return nil }
        do { try record.move(to: state) } catch {
            assertionFailure("refused transition: \(error)")
            return nil
        }
        mutate(&record)
        table[id] = record
        emit(.job(record))
        return record
    }

    @discardableResult
    func finishWithoutRunning(_ id: JobID, state: JobState, reason: String) -> JobRecord? {
        retries.removeValue(forKey: id)?.timer.cancel()
        // A job cancelled while it waited for a retry: its earlier attempts' log is kept too.
        if let kept = keptLogs.waitingForRetry.removeValue(forKey: id) { writeLog(kept, of: id) }
        let record = transition(id, to: state) { record in
            record.error = reason
            record.finishedAt = WallClock.millis()
        }
        if let record { statistics.recordFinish(kind: record.kind, state: state, seconds: nil) }
        return record
    }

    /// Applies what dependencies call for (`DependencyResolver`): queues waiting jobs whose
    /// dependencies all succeeded, cancels those with a dependency that failed or is no longer known.
    func resolveDependents() {
        for step in DependencyResolver.steps(for: table.all, foreign: cluster.foreignStates) {
            switch step {
            case .cancel(let id, let reason): finishWithoutRunning(id, state: .cancelled, reason: reason)
            case .queue(let id): transition(id, to: .queued)
            }
        }
    }

    /// The state of a job a job of this dispatcher waits for: its own, or one another cluster node
    /// runs (`ClusterHooks.foreignStates`).
    func dependencyState(_ id: JobID) -> JobState? { table[id]?.state ?? cluster.foreignStates[id] }

    /// Starts queued jobs, oldest first, while per-kind limits allow: on a remote worker with a free
    /// slot that runs the kind, else here while local workers are free and the kind has a command.
    func pump() {
        guard !isShuttingDown else { return }
        for id in table.order {
            guard let record = table[id], record.state == .queued,
                record.after.allSatisfy({ dependencyState($0) == .succeeded })
            else { continue }
            if let due = retries[id]?.due, due > clock.now() { continue }
            guard let slot = freeSlot(for: record.kind), passesGate(record) else { continue }
            switch slot {
            case .worker(let session): launchRemote(record, on: session)
            case .here: launch(record)
            }
        }
    }

    /// Where one more job of a kind would run now.
    enum Slot {
        case worker(WorkerSession)
        case here
    }

    /// A place for one more job of `kind`, within the kind's limit: a remote worker with a free slot
    /// that runs it first, else here while local workers are free and the kind has a command; nil
    /// when there is none. Thread: `queue`.
    func freeSlot(for kind: JobKind) -> Slot? {
        let runningOfKind = running.values.filter { $0.context.kind == kind }.count
        guard runningOfKind < configuration.limit(for: kind).maxConcurrent else { return nil }
        if let session = remote.pool.pick(kind) { return .worker(session) }
        if running.count - remote.pool.heldCount < configuration.workers, runners[kind]?.runsLocally == true { return .here }
        return nil
    }

    /// Moves a queued job to `running` with a fresh context: the part of a launch that local and
    /// remote runs share. Returns the running record.
    func begin(_ next: JobRecord, attempt: Int?, worker: String?) -> JobRecord? {
        let id = next.id
        retries.removeValue(forKey: id)?.timer.cancel()
        var queued = next
        queued.attempt = attempt
        let reporter = ProgressReporter { [weak self] in
            guard let self else { return }
            self.queue.async { self.sampleProgress(of: id, final: false) }
        }
        let context = JobContext(
            record: queued, environment: environment, progress: reporter, sink: self,
            log: keptLogs.waitingForRetry.removeValue(forKey: id) ?? LogKeeper())
        running[id] = RunningJob(
            context: context, coalescer: ProgressCoalescer(maxEventsPerSecond: configuration.progressEventsPerSecond),
            started: clock.now())
        let record = transition(id, to: .running) { record in
            record.startedAt = WallClock.millis()
            record.attempt = attempt
            record.worker = worker
            // A retry starts clean: the last attempt's error and exit were shown while it waited.
            record.error = nil
            record.exit = nil
        }
        startProgressTimerIfNeeded()
        return record
    }

    private func launch(_ next: JobRecord) {
        guard let runner = runners[next.kind] else { return }
        let id = next.id
        let attempt = runner.retryPolicy != nil ? (next.attempt ?? 0) + 1 : next.attempt
        guard begin(next, attempt: attempt, worker: nil) != nil, let context = running[id]?.context else { return }
        // The thread holds the dispatcher strongly until the job's outcome is delivered.
        let thread = Thread { [self] in
            let outcome: Result<JSONObject, any Error> = Result { try runner.run(context) }
            self.queue.async { self.finish(id, outcome) }
        }
        thread.name = "herald.worker.\(next.kind.rawValue)"
        thread.start()
    }

    /// A worker returned: emit the final progress, then the terminal state, then schedule more.
    func finish(_ id: JobID, _ outcome: Result<JSONObject, any Error>) {
        dispatchPrecondition(condition: .onQueue(queue))
        sampleProgress(of: id, final: true)
        guard let job = running.removeValue(forKey: id) else { return }
        let seconds = clock.now() - job.started
        let wasCancelled = cancelRequested.remove(id) != nil
        let state: JobState
        var error: String?
        var summary: JSONObject?
        switch outcome {
        case .success where wasCancelled, .failure(is JobCancelled):
            state = .cancelled
            error = wasCancelled ? "cancelled by request" : "cancelled"
        case .success(let value):
            state = .succeeded
            summary = value
        case .failure(let failure):
            state = .failed
            error = (failure as? JobFailure)?.message ?? String(describing: failure)
        }
        let exit = job.context.recordedExit
        if state == .failed, let policy = runners[job.context.kind]?.retryPolicy, job.context.attempt <= policy.retries {
            // The next attempt's lines go on in the same log.
            if job.context.log.count > 0 { keptLogs.waitingForRetry[id] = job.context.log }
            retry(id, after: job.context.attempt, policy: policy, error: error ?? "failed", exit: exit)
            statistics.progressCoalesced += job.coalescer.heldBack
            statistics.retries += 1
            pump()
            if running.isEmpty { becameIdle() }
            return
        }
        keepLog(of: job.context)
        transition(id, to: state) { record in
            record.finishedAt = WallClock.millis()
            record.error = error
            record.summary = summary
            record.exit = exit
        }
        statistics.recordFinish(kind: job.context.kind, state: state, seconds: seconds)
        statistics.progressCoalesced += job.coalescer.heldBack
        resolveDependents()
        pump()
        forgetOldJobs()
        if running.isEmpty { becameIdle() }
    }

    /// An ended command job's log goes to its file, off the queue; pages read it from memory until then.
    private func keepLog(of context: JobContext) {
        guard context.log.count > 0 else { return }
        writeLog(context.log, of: context.id)
    }

    private func writeLog(_ kept: LogKeeper, of id: JobID) {
        keptLogs.beingWritten[id] = kept
        let files = logFiles
        DispatchQueue.global(qos: .utility).async { [self] in
            let (first, lines) = kept.all()
            files.write(id, lines, first: first)
            queue.async { self.keptLogs.beingWritten[id] = nil }
        }
    }

    /// No job runs any more: the progress timer stops and `shutdown` callers stop waiting.
    private func becameIdle() {
        stopProgressTimer()
        for waiter in idleWaiters { waiter.signal() }
        idleWaiters = []
    }

    /// A failed attempt with attempts left: back to `queued`, run again after the policy's delay.
    private func retry(_ id: JobID, after attempt: Int, policy: RetryPolicy, error: String, exit: JSONObject?) {
        let delay = policy.delay(after: attempt, jitter: Double.random(in: -1...1))
        // The timer, not a reading of the clock, says the wait is over: a Dispatch timer may fire a
        // hair before the clock reads the due time, and a job the pump then skipped would wait for ever.
        let timer = clock.schedule(on: queue, after: delay, repeating: nil) { [weak self] in self?.retryIsDue(id) }
        retries[id] = (clock.now() + delay, timer)
        transition(id, to: .queued) { record in
            record.error = "attempt \(attempt) failed: \(error); retrying in \(Self.shortSeconds(delay)) s"
            record.exit = exit
        }
    }

    /// A retry's wait is over: it may launch at the next pump, which runs now. Thread: `queue`.
    private func retryIsDue(_ id: JobID) {
        retries[id]?.due = -.infinity
        pump()
    }

    static func shortSeconds(_ seconds: Double) -> String {
        seconds < 10 ? String(format: "%.1f", seconds) : String(Int(seconds.rounded()))
    }

    /// Keeps memory and snapshots bounded (`JobTable.forgetOld`): the jobs that leave go to the
    /// history archive (a history page, and a look-up by id, still find them), their logs' files away.
    func forgetOldJobs() {
        let leaving = table.forgetOld(
            retainedFinished: configuration.retainedFinishedJobs, keptResultBytes: configuration.keptResultBytes)
        guard !leaving.isEmpty else { return }
        let files = logFiles
        let ids = Set(leaving.map(\.id))
        DispatchQueue.global(qos: .utility).async { files.remove(ids) }
        history?.forget(leaving)
    }

    /// Gives the event its number, logs it, and hands it to every subscriber, in order.
    func emit(_ event: EngineEvent) {
        dispatchPrecondition(condition: .onQueue(queue))
        let (_, beganBatch) = stream.append(event, ts: WallClock.micros())
        if case .job(let record) = event { history?.record(record) }
        // The batch begins: it is handed over once the blocks queued so far have added theirs.
        if beganBatch { queue.async { [self] in flushOutgoing() } }
    }

    /// The kinds clients may start: the built-in ones first, in their usual order, then the rest by name.
    var offeredKinds: [JobKind] {
        let offered = runners.keys.filter { $0 != .ticker || configuration.enableTicker }
        return JobKind.builtIn.filter(offered.contains) + offered.filter { !JobKind.builtIn.contains($0) }.sorted()
    }

    func makeSnapshot() -> Snapshot {
        var limits: JSONObject = [:]
        var kinds: JSONObject = [:]
        for kind in offeredKinds {
            let limit = configuration.limit(for: kind)
            var entry = runners[kind]?.catalogEntry ?? [:]
            entry["maxConcurrent"] = .int(Int64(limit.maxConcurrent))
            entry["refuseWhenBusy"] = .bool(limit.refuseWhenBusy)
            kinds[kind.rawValue] = .object(entry)
        }
        limits["kinds"] = .object(kinds)
        limits["workers"] = .int(Int64(configuration.workers))
        limits["maxSearchResults"] = .int(Int64(environment.maxSearchResults))
        limits["maxSortCount"] = .int(Int64(environment.maxSortCount))
        limits["eventLogSize"] = .int(Int64(stream.log.capacity))
        limits["progressEventsPerSecond"] = .number(configuration.progressEventsPerSecond)
        return Snapshot(epoch: epoch, seq: stream.seq, jobs: table.all, news: news, limits: limits, workers: remote.pool.infos)
    }
}
