import Dispatch

/// Remote workers (docs/workers.md): attaching them, assigning jobs, taking their reports only from
/// the holder of the current attempt (fencing), and losing the attempts of a worker that went
/// silent for its lease or whose connection closed. The public calls hop onto `queue` and never
/// wait; everything else here runs on `queue`.
extension JobDispatcher {
    public func attachWorker(_ session: WorkerSession, _ hello: WorkerHello, directives: @escaping @Sendable (WorkerDirective) -> Void) {
        queue.async { [self] in attachOnQueue(session, hello, directives: directives) }
    }

    public func workerSent(_ session: WorkerSession, _ report: WorkerReport) {
        queue.async { [self] in reportOnQueue(session, report) }
    }

    public func detachWorker(_ session: WorkerSession) {
        queue.async { [self] in
            remote.expired[session] = nil
            detachOnQueue(session, because: "its connection closed")
        }
    }

    /// The lease in whole seconds, as workers are told it.
    var leaseSeconds: Int { max(1, Int(configuration.workerLeaseSeconds.rounded(.up))) }

    private func attachOnQueue(_ session: WorkerSession, _ hello: WorkerHello, directives: @escaping @Sendable (WorkerDirective) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isShuttingDown else {
            return directives(.error(EngineError(.shuttingDown, "the server is shutting down"), job: nil, attempt: nil))
        }
        guard !remote.pool.isAttached(session) else {
            return directives(.error(EngineError(.badRequest, "this connection already said hello"), job: nil, attempt: nil))
        }
        if let refusal = WorkerHelloCheck.refusal(of: hello, runners: runners) {
            return directives(.error(refusal, job: nil, attempt: nil))
        }
        remote.pool.attach(session, hello, now: clock.now())
        remote.directives[session] = directives
        directives(.accepted(name: hello.name, lease: leaseSeconds))
        startLeaseTimerIfNeeded()
        emitWorkersIfChanged()
        pump()
    }

    private func reportOnQueue(_ session: WorkerSession, _ report: WorkerReport) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let directives = remote.directives[session] else {
            // The worker's lease ran out and its connection is being closed: a report on a run is
            // refused like any other about an attempt the worker no longer holds.
            if let expired = remote.expired[session], let (job, attempt) = report.target {
                statistics.staleReports += 1
                expired(
                    .error(
                        EngineError(
                            .leaseLost, "attempt \(attempt) of job \(job) is not this worker's any more: its lease ran out; stop it"),
                        job: job, attempt: attempt))
            }
            return
        }
        remote.pool.heard(session, now: clock.now())
        guard let (job, attempt) = report.target else {
            if report == .drain {
                remote.pool.drain(session)
                emitWorkersIfChanged()
            }
            return
        }
        guard let record = table[job] else {
            return directives(.error(EngineError(.notFound, "no job \(job)"), job: job, attempt: attempt))
        }
        guard remote.pool.holds(session, job: job, attempt: attempt), let run = running[job] else {
            statistics.staleReports += 1
            let now: String
            if record.state.isTerminal {
                now = "the job ended \(record.state.rawValue)"
            } else if let holder = remote.pool.holder(of: job) {
                now = holder.session == session ? "this worker runs attempt \(holder.attempt)" : "attempt \(holder.attempt) runs elsewhere"
            } else {
                now = "the job is \(record.state.rawValue)"
            }
            return directives(
                .error(
                    EngineError(.leaseLost, "attempt \(attempt) of job \(job) is not this worker's (any more): \(now); stop it"),
                    job: job, attempt: attempt))
        }
        switch report {
        case .progress(_, _, let progress):
            run.context.progress.report(completed: progress.completed, total: progress.total, message: progress.message)
        case .log(_, _, let lines, let skipped):
            // A worker's skipped lines never reach the server, so its kept log numbers only these.
            let first = run.context.log.nextNumber
            for line in lines { run.context.log.append(line) }
            emit(.log(job: job, lines: lines, skipped: skipped, first: first))
        case .results(_, _, let items):
            keepAndEmitResults(job: job, items: items)
        case .result(_, _, let summary):
            remote.pool.release(job)
            finish(job, .success(summary))
            emitWorkersIfChanged()
        case .fail(_, _, let error, let exit, let cancelled):
            if let exit { run.context.recordExit(exit) }
            remote.pool.release(job)
            if let timeout = remote.timedOut.remove(job).flatMap({ _ in timeout(of: record.kind) }), !cancelRequested.contains(job) {
                finish(job, .failure(JobFailure("timed out after \(CommandRunner.seconds(timeout)) s")))
            } else {
                finish(job, .failure(cancelled ? JobCancelled() as any Error : JobFailure(error)))
            }
            emitWorkersIfChanged()
        case .beat, .drain:
            break
        }
    }

    /// Forgets a worker; the attempts it held are lost: retried while attempts are left, else failed
    /// naming the worker (cancelled, for a job whose cancel was asked for).
    func detachOnQueue(_ session: WorkerSession, because reason: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard remote.directives.removeValue(forKey: session) != nil else { return }
        let name = remote.pool.name(of: session) ?? "?"
        let lost = remote.pool.detach(session)
        for (job, _) in lost {
            statistics.leasesLost += 1
            remote.timedOut.remove(job)
            let cancelled = cancelRequested.contains(job)
            finish(job, .failure(cancelled ? JobCancelled() as any Error : JobFailure("worker \(name) lost: \(reason)")))
        }
        emitWorkersIfChanged()
        if remote.pool.count == 0 { stopLeaseTimer() }
        pump()
    }

    /// Runs a queued job on a worker: the attempt is counted and assigned before anyone is told.
    func launchRemote(_ next: JobRecord, on session: WorkerSession) {
        guard let name = remote.pool.name(of: session), let directives = remote.directives[session] else { return }
        let attempt = (next.attempt ?? 0) + 1
        remote.pool.assign(next.id, attempt: attempt, to: session)
        remote.timedOut.remove(next.id)
        guard let record = begin(next, attempt: attempt, worker: name) else { return }
        directives(.assign(record, attempt: attempt, lease: leaseSeconds))
        emitWorkersIfChanged()
    }

    /// A `workers` event, unless the list is the one the last carried: a slot freed by a result and
    /// refilled by the next queued job in the same turn leaves the list as it was, and viewers
    /// would get the same list twice.
    func emitWorkersIfChanged() {
        let infos = remote.pool.infos
        guard infos != remote.lastAnnounced else { return }
        remote.lastAnnounced = infos
        emit(.workers(infos))
    }

    /// Asks a running job to stop: its flag for a local run, a `cancel` for a worker's.
    func requestCancel(_ id: JobID) {
        cancelRequested.insert(id)
        running[id]?.context.requestCancel()
        if let holder = remote.pool.holder(of: id) { remote.directives[holder.session]?(.cancel(job: id, attempt: holder.attempt)) }
    }

    private func startLeaseTimerIfNeeded() {
        guard leaseTimer == nil else { return }
        let interval = min(1.0, max(0.05, configuration.workerLeaseSeconds / 10))
        leaseTimer = clock.schedule(on: queue, after: interval, repeating: interval) { [weak self] in self?.checkLeases() }
    }

    private func stopLeaseTimer() {
        leaseTimer?.cancel()
        leaseTimer = nil
    }

    /// The server's `timeout` for a kind (from its jobs file), which holds for remote attempts too.
    private func timeout(of kind: JobKind) -> Double? {
        (runners[kind] as? CommandRunner)?.definition.timeout
    }

    /// Drops every worker not heard from for a lease: its connection is closed, its attempts lost.
    /// Asks a worker to stop an attempt that ran past its kind's timeout (it ends `failed`, "timed out").
    private func checkLeases() {
        for (job, run) in running where !remote.timedOut.contains(job) {
            guard let holder = remote.pool.holder(of: job), let timeout = timeout(of: run.context.kind),
                clock.now() - run.started >= timeout
            else { continue }
            remote.timedOut.insert(job)
            remote.directives[holder.session]?(.cancel(job: job, attempt: holder.attempt))
        }
        let lease = configuration.workerLeaseSeconds
        for session in remote.pool.expired(now: clock.now(), lease: lease) {
            let reason = "no message for \(Self.shortSeconds(lease)) s"
            let directives = remote.directives[session]
            directives?(.drop(reason: "worker lease expired: \(reason)"))
            detachOnQueue(session, because: reason)
            remote.expired[session] = directives
        }
    }
}
