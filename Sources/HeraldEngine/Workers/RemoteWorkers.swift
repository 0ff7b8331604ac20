import Dispatch

/// A dispatcher's remote workers (docs/workers.md): attaching them, assigning jobs, taking their
/// reports only from the holder of the current attempt (fencing), and losing the attempts of a
/// worker that went silent for its lease or whose connection closed.
///
/// Thread: every member runs on the dispatcher queue and is reached only through the dispatcher
/// (which passes itself in: the runs, the job table and the event order are its own). Not Sendable.
final class RemoteWorkers {
    /// Who is attached and holds which attempts.
    private(set) var pool = WorkerPool()
    /// How to reach each attached worker's connection.
    private var directives: [WorkerSession: @Sendable (WorkerDirective) -> Void] = [:]
    /// Workers dropped for their lease whose connection has not closed yet: their reports are
    /// answered `lease_lost`.
    private var expired: [WorkerSession: @Sendable (WorkerDirective) -> Void] = [:]
    /// The list the last `workers` event carried.
    private var lastAnnounced: [WorkerInfo] = []
    /// Attempts cancelled for running past their kind's timeout: their `fail` is a timeout, not a cancel.
    private var timedOut: Set<JobID> = []
    /// Checks leases and timeouts while any worker is attached.
    private var leaseTimer: (any ScheduledTimer)?

    /// The lease in whole seconds, as workers are told it.
    static func leaseSeconds(_ configuration: EngineConfiguration) -> Int {
        max(1, Int(configuration.workerLeaseSeconds.rounded(.up)))
    }

    func attach(
        _ session: WorkerSession, _ hello: WorkerHello, directives: @escaping @Sendable (WorkerDirective) -> Void,
        to jobs: JobLifecycle
    ) {
        guard !jobs.isShuttingDown else {
            return directives(.error(EngineError(.shuttingDown, "the server is shutting down"), job: nil, attempt: nil))
        }
        guard !pool.isAttached(session) else {
            return directives(.error(EngineError(.badRequest, "this connection already said hello"), job: nil, attempt: nil))
        }
        if let refusal = WorkerHelloCheck.refusal(of: hello, runners: jobs.runners.byKind) {
            return directives(.error(refusal, job: nil, attempt: nil))
        }
        pool.attach(session, hello, now: jobs.clock.now())
        self.directives[session] = directives
        directives(.accepted(name: hello.name, lease: Self.leaseSeconds(jobs.configuration)))
        startLeaseTimer(jobs)
        announceIfChanged(jobs)
        jobs.pump()
    }

    /// The connection closed: the worker is forgotten, its attempts lost.
    func closed(_ session: WorkerSession, in jobs: JobLifecycle) {
        expired[session] = nil
        detach(session, because: "its connection closed", in: jobs)
    }

    func report(_ report: WorkerReport, from session: WorkerSession, to jobs: JobLifecycle) {
        guard let directives = directives[session] else {
            // The worker's lease ran out and its connection is being closed: a report on a run is
            // refused like any other about an attempt the worker no longer holds.
            if let expired = expired[session], let (job, attempt) = report.target {
                jobs.statistics.staleReports += 1
                expired(
                    .error(
                        EngineError(
                            .leaseLost, "attempt \(attempt) of job \(job) is not this worker's any more: its lease ran out; stop it"),
                        job: job, attempt: attempt))
            }
            return
        }
        pool.heard(session, now: jobs.clock.now())
        guard let (job, attempt) = report.target else {
            if report == .drain {
                pool.drain(session)
                announceIfChanged(jobs)
            } else if report == .beat {
                directives(.beat)
            }
            return
        }
        guard let record = jobs.table[job] else {
            return directives(.error(EngineError(.notFound, "no job \(job)"), job: job, attempt: attempt))
        }
        guard pool.holds(session, job: job, attempt: attempt), let run = jobs.runs[job] else {
            jobs.statistics.staleReports += 1
            return directives(.error(staleReport(job, attempt, record: record, from: session), job: job, attempt: attempt))
        }
        switch report {
        case .progress(_, _, let progress):
            run.context.progress.report(completed: progress.completed, total: progress.total, message: progress.message)
        case .log(_, _, let lines, let skipped):
            // A worker's skipped lines never reach the server, so its kept log numbers only these.
            let first = run.context.log.nextNumber
            for line in lines { run.context.log.append(line) }
            jobs.emit(.log(job: job, lines: lines, skipped: skipped, first: first))
        case .results(_, _, let items):
            jobs.keepAndEmitResults(job: job, items: items)
        case .result(_, _, let summary):
            pool.release(job)
            jobs.finish(job, .success(summary))
            announceIfChanged(jobs)
        case .fail(_, _, let error, let exit, let cancelled):
            if let exit { run.context.recordExit(exit) }
            pool.release(job)
            let timeout = timedOut.remove(job).flatMap { _ in jobs.runners.timeout(of: record.kind) }
            if let timeout, !jobs.runs.cancelRequested.contains(job) {
                jobs.finish(job, .failure(JobFailure("timed out after \(CommandRunner.seconds(timeout)) s")))
            } else {
                jobs.finish(job, .failure(cancelled ? JobCancelled() as any Error : JobFailure(error)))
            }
            announceIfChanged(jobs)
        case .beat, .drain:
            break
        }
    }

    /// `lease_lost`, saying where the job stands now.
    private func staleReport(_ job: JobID, _ attempt: Int, record: JobRecord, from session: WorkerSession) -> EngineError {
        let now: String
        if record.state.isTerminal {
            now = "the job ended \(record.state.rawValue)"
        } else if let holder = pool.holder(of: job) {
            now = holder.session == session ? "this worker runs attempt \(holder.attempt)" : "attempt \(holder.attempt) runs elsewhere"
        } else {
            now = "the job is \(record.state.rawValue)"
        }
        return EngineError(.leaseLost, "attempt \(attempt) of job \(job) is not this worker's (any more): \(now); stop it")
    }

    /// Runs a queued job on a worker: the attempt is counted and assigned before anyone is told.
    func launch(_ next: JobRecord, on session: WorkerSession, in jobs: JobLifecycle) {
        guard let name = pool.name(of: session), let directives = directives[session] else { return }
        let attempt = (next.attempt ?? 0) + 1
        pool.assign(next.id, attempt: attempt, to: session)
        timedOut.remove(next.id)
        guard let record = jobs.begin(next, attempt: attempt, worker: name) else { return }
        directives(.assign(record, attempt: attempt, lease: Self.leaseSeconds(jobs.configuration)))
        announceIfChanged(jobs)
    }

    /// Tells the worker that holds `job`'s attempt, if any, to stop it.
    func cancel(_ job: JobID) {
        if let holder = pool.holder(of: job) { directives[holder.session]?(.cancel(job: job, attempt: holder.attempt)) }
    }

    /// A `workers` event, unless the list is the one the last carried: a slot freed by a result and
    /// refilled by the next queued job in the same turn leaves the list as it was, and viewers
    /// would get the same list twice.
    func announceIfChanged(_ jobs: JobLifecycle) {
        guard pool.infos != lastAnnounced else { return }
        announce(jobs)
    }

    /// A `workers` event with the list as it is.
    func announce(_ jobs: JobLifecycle) {
        lastAnnounced = pool.infos
        jobs.emit(.workers(lastAnnounced))
    }

    /// Forgets a worker; the attempts it held are lost: retried while attempts are left, else failed
    /// naming the worker (cancelled, for a job whose cancel was asked for).
    private func detach(_ session: WorkerSession, because reason: String, in jobs: JobLifecycle) {
        guard directives.removeValue(forKey: session) != nil else { return }
        let name = pool.name(of: session) ?? "?"
        for (job, _) in pool.detach(session) {
            jobs.statistics.leasesLost += 1
            timedOut.remove(job)
            let cancelled = jobs.runs.cancelRequested.contains(job)
            jobs.finish(job, .failure(cancelled ? JobCancelled() as any Error : JobFailure("worker \(name) lost: \(reason)")))
        }
        announceIfChanged(jobs)
        if pool.count == 0 {
            leaseTimer?.cancel()
            leaseTimer = nil
        }
        jobs.pump()
    }

    private func startLeaseTimer(_ jobs: JobLifecycle) {
        guard leaseTimer == nil else { return }
        let interval = min(1.0, max(0.05, jobs.configuration.workerLeaseSeconds / 10))
        leaseTimer = jobs.clock.schedule(on: jobs.queue, after: interval, repeating: interval) { [weak jobs] in
            guard let jobs else { return }
            jobs.workers.checkLeases(jobs)
        }
    }

    /// Drops every worker not heard from for a lease: its connection is closed, its attempts lost.
    /// Asks a worker to stop an attempt that ran past its kind's timeout (it ends `failed`, "timed out").
    private func checkLeases(_ jobs: JobLifecycle) {
        let now = jobs.clock.now()
        for run in jobs.runs.all where !timedOut.contains(run.context.id) {
            guard let holder = pool.holder(of: run.context.id), let timeout = jobs.runners.timeout(of: run.context.kind),
                now - run.started >= timeout
            else { continue }
            timedOut.insert(run.context.id)
            directives[holder.session]?(.cancel(job: run.context.id, attempt: holder.attempt))
        }
        let lease = jobs.configuration.workerLeaseSeconds
        for session in pool.expired(now: now, lease: lease) {
            let reason = "no message for \(JobLifecycle.shortSeconds(lease)) s"
            let directives = directives[session]
            directives?(.drop(reason: "worker lease expired: \(reason)"))
            detach(session, because: reason, in: jobs)
            expired[session] = directives
        }
    }
}
