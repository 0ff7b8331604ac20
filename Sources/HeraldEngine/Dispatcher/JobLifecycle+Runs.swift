import Dispatch
import HeraldAccess
import Foundation
import HeraldSupport

/// Starting, scheduling, cancelling and finishing jobs. Every function here runs on `queue`.
extension JobLifecycle {
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
            guard dependencyState(id) != nil else { return .failure(.badRequest(field: "after", "unknown job \(text)")) }
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
        var record = JobRecord(
            id: request.id ?? JobID.random(), kind: kind, params: params, after: after, requestId: request.requestId,
            createdAt: wallMillis, node: configuration.nodeName)
        record.schedule = request.schedule
        record.startedBy = request.schedule.map { "schedule:\($0)" } ?? request.startedBy
        table.insert(record)
        if let requestId = request.requestId { table.remember(requestId: requestId, for: record.id) }
        emit(.job(record))
        if !after.isEmpty { _ = transition(record.id, to: .waiting) }
        resolveDependents()
        pump()
        forgetOldJobs()
        return .success(table[record.id] ?? record)
    }

    /// Why a start's `requestId` is refused, if it is.
    func requestIdRefusal(_ request: StartRequest) -> EngineError? {
        guard let requestId = request.requestId, requestId.isEmpty || requestId.utf8.count > 128 else { return nil }
        return .badRequest(field: "requestId", "must be 1 to 128 bytes")
    }

    /// What every start must pass before a job is made (the server takes jobs, the kind is offered,
    /// its params are valid): the params normalised, or the refusal.
    func checkedParams(_ request: StartRequest) -> Result<JSONObject, EngineError> {
        guard !isShuttingDown else { return .failure(EngineError(.shuttingDown, "the server is shutting down")) }
        return runners.checkedParams(request, environment: environment)
    }

    /// Cancels a job for `principal`, when its role and scope reach the job (who started it, its
    /// kind); the record names who cancelled it.
    func cancelOnQueue(_ text: String, by principal: Principal = .anonymousAdmin) -> Result<JobRecord, EngineError> {
        dispatchPrecondition(condition: .onQueue(queue))
        let id = JobID(text)
        guard let record = table[id] else { return .failure(EngineError(.notFound, "no job \(text)")) }
        if let refusal = principal.refusalToCancel(job: text, kind: record.kind.rawValue, startedBy: record.startedBy) {
            return .failure(EngineError(refusal))
        }
        if !record.state.isTerminal { table[id]?.cancelledBy = principal.name }
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

    /// Asks a running job to stop: its flag for a local run, a `cancel` for a worker's.
    func requestCancel(_ id: JobID) {
        runs.requestCancel(id)
        workers.cancel(id)
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
        // A job cancelled while it waited for a retry: its earlier attempts' log is kept too.
        if let kept = runs.endRetry(id), kept.count > 0 { archive.writeLog(kept, of: id) }
        let record = transition(id, to: state) { record in
            record.markEnded(error: reason, at: wallMillis)
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

    /// The state of a job a job of this dispatcher waits for: its own, or one another cluster node runs.
    func dependencyState(_ id: JobID) -> JobState? { table[id]?.state ?? cluster.foreignStates[id] }

    /// Starts queued jobs, oldest first, while per-kind limits allow: on a remote worker with a free
    /// slot that runs the kind, else here while local workers are free and the kind has a command.
    func pump() {
        guard !isShuttingDown else { return }
        for id in table.order {
            guard let record = table[id], record.state == .queued, !runs.isWaitingForRetry(id, now: clock.now()),
                record.after.allSatisfy({ dependencyState($0) == .succeeded }),
                let slot = freeSlot(for: record.kind),
                cluster.allowsLaunch(record, in: self)
            else { continue }
            switch slot {
            case .worker(let session): workers.launch(record, on: session, in: self)
            case .here: launch(record)
            }
        }
    }

    /// Where one more job of `kind` would run now, within its limit (`RunningJobs.slot`).
    func freeSlot(for kind: JobKind) -> RunningJobs.Slot? {
        runs.slot(
            for: kind, limit: configuration.limit(for: kind).maxConcurrent, localWorkers: configuration.workers,
            runsLocally: runners[kind]?.runsLocally == true, pool: workers.pool)
    }

    /// Moves a queued job to `running` with a fresh context: the part of a launch that local and
    /// remote runs share. Returns the running record.
    func begin(_ next: JobRecord, attempt: Int?, worker: String?) -> JobRecord? {
        let id = next.id
        let earlierLog = runs.endRetry(id)
        var queued = next
        queued.attempt = attempt
        let reporter = ProgressReporter { [weak self] in
            guard let self else { return }
            self.queue.async { self.sampleProgress(of: id, final: false) }
        }
        let context = JobContext(record: queued, environment: environment, progress: reporter, sink: intake, log: earlierLog ?? LogKeeper())
        runs.begin(
            id,
            RunningJobs.Run(
                context: context, coalescer: ProgressCoalescer(maxEventsPerSecond: configuration.progressEventsPerSecond),
                started: clock.now()))
        let record = transition(id, to: .running) { record in
            record.markStarted(at: wallMillis)
            record.attempt = attempt
            record.worker = worker
            // A retry starts clean: the last attempt's error and exit were shown while it waited.
            record.error = nil
            record.exit = nil
        }
        startProgressTimer()
        return record
    }

    private func launch(_ next: JobRecord) {
        guard let runner = runners[next.kind] else { return }
        let id = next.id
        let attempt = runner.retryPolicy != nil ? (next.attempt ?? 0) + 1 : next.attempt
        guard begin(next, attempt: attempt, worker: nil) != nil, let context = runs[id]?.context else { return }
        // The thread holds the dispatcher strongly until the job's outcome is delivered.
        let thread = Thread { [self] in
            let outcome: Result<JSONObject, any Error> = Result { try runner.run(context) }
            self.queue.async { self.finish(id, outcome) }
        }
        thread.name = "herald.worker.\(next.kind.rawValue)"
        thread.start()
    }

    /// A run returned: emit the final progress, then the terminal state (or a retry), then schedule more.
    func finish(_ id: JobID, _ outcome: Result<JSONObject, any Error>) {
        dispatchPrecondition(condition: .onQueue(queue))
        sampleProgress(of: id, final: true)
        guard let (job, wasCancelled) = runs.end(id) else { return }
        let context = job.context
        statistics.progressCoalesced += job.coalescer.heldBack
        let ending = JobEnding(outcome, wasCancelled: wasCancelled)
        if ending.state == .failed, let policy = runners[context.kind]?.retryPolicy, context.attempt <= policy.retries {
            // The next attempt's lines go on in the same log.
            retry(
                id, after: context.attempt, policy: policy, error: ending.error ?? "failed", exit: context.recordedExit,
                log: context.log.count > 0 ? context.log : nil)
            statistics.retries += 1
            pump()
        } else {
            if context.log.count > 0 { archive.writeLog(context.log, of: id) }
            transition(id, to: ending.state) { record in
                record.markEnded(error: ending.error, at: wallMillis)
                record.summary = ending.summary
                record.exit = context.recordedExit
            }
            statistics.recordFinish(kind: context.kind, state: ending.state, seconds: clock.now() - job.started)
            resolveDependents()
            pump()
            forgetOldJobs()
        }
        if runs.isEmpty {
            timers.stop(.progress)
            runs.becameIdle()
        }
    }

    /// A failed attempt with attempts left: back to `queued`, run again after the policy's delay.
    private func retry(_ id: JobID, after attempt: Int, policy: RetryPolicy, error: String, exit: JSONObject?, log: LogKeeper?) {
        let delay = policy.delay(after: attempt, jitter: Double.random(in: -1...1))
        // The timer, not a reading of the clock, says the wait is over: a Dispatch timer may fire a
        // hair before the clock reads the due time, and a job the pump then skipped would wait for ever.
        let timer = clock.schedule(on: queue, after: delay, repeating: nil) { [weak self] in
            self?.runs.retryIsDue(id)
            self?.pump()
        }
        runs.waitForRetry(id, due: clock.now() + delay, timer: timer, log: log)
        transition(id, to: .queued) { record in
            record.error = "attempt \(attempt) failed: \(error); retrying in \(Self.shortSeconds(delay)) s"
            record.exit = exit
        }
    }

    static func shortSeconds(_ seconds: Double) -> String {
        seconds < 10 ? String(format: "%.1f", seconds) : String(Int(seconds.rounded()))
    }

    /// Keeps memory and snapshots bounded (`JobTable.forgetOld`): the jobs that leave go to the
    /// history archive (a history page, and a look-up by id, still find them), their logs' files away.
    func forgetOldJobs() {
        let leaving = table.forgetOld(
            retainedFinished: configuration.retainedFinishedJobs, keptResultBytes: configuration.keptResultBytes)
        if !leaving.isEmpty { archive.forget(leaving) }
    }
}
