import Dispatch

/// What a cluster node asks of its dispatcher besides the `JobEngine` messages; the state and the
/// decisions are `jobs.cluster`'s (`ClusterHooks`). Thread: any; never waits, but where it says so.
extension JobDispatcher {
    /// Checks `request` as a start would (request id, kind, params; not dependencies, which only a
    /// start with `after` has, and which the node that takes it checks), without making a job: the
    /// params normalised (defaults filled in), or why it would be refused. `reply` runs on `queue`.
    public func check(_ request: StartRequest, reply: @escaping @Sendable (Result<JSONObject, EngineError>) -> Void) {
        queue.async { [jobs] in
            if let refusal = jobs.requestIdRefusal(request) { return reply(.failure(refusal)) }
            reply(jobs.checkedParams(request))
        }
    }

    /// Whether one more job of `kind` would start now: a remote worker with a free slot runs it, or
    /// a local one is free and the kind runs here, within the kind's limit. Thread: any but `queue`;
    /// waits for the queue (a cluster node's command queue asks).
    public func hasRoom(for kind: JobKind) -> Bool {
        queue.sync {
            // Queued jobs of its own come first.
            guard !jobs.isShuttingDown, !jobs.table.all.contains(where: { $0.state == .queued && $0.kind == kind }) else { return false }
            return jobs.freeSlot(for: kind) != nil
        }
    }

    /// The states of jobs other cluster nodes run, as the cluster's view last saw them. `register`:
    /// jobs a start is about to name in `after` (so the start may name them); otherwise only jobs
    /// already known are updated, and a change lets the jobs that wait for them go on (or be
    /// cancelled, when a dependency ended other than `succeeded`).
    public func noteForeignJobs(_ states: [JobID: JobState], register: Bool = false) {
        queue.async { [jobs] in
            guard jobs.cluster.note(states, register: register, table: jobs.table) else { return }
            jobs.resolveDependents()
            jobs.pump()
        }
    }

    /// Asks for consent before launching a job of `kinds` (a cluster node: their `concurrency` holds
    /// across the cluster, and a start with dependencies kept here may run only once Redis gives it a
    /// place). `gate` answers on any thread; a refusal stands until `reopenGates`. Jobs taken over or
    /// from the cluster's queue (`adopt`) need no consent.
    public func gateLaunches(of kinds: Set<JobKind>, through gate: @escaping LaunchGate) {
        queue.async { [jobs] in jobs.cluster.gate(kinds, through: gate) }
    }

    /// A place may have freed for jobs of `kinds` (one ended somewhere): their refused jobs ask the
    /// gate again.
    public func reopenGates(for kinds: Set<JobKind>) {
        queue.async { [jobs] in
            if jobs.cluster.reopen(kinds, table: jobs.table) { jobs.pump() }
        }
    }

    /// Adopts `record`, a job that `node` held when it stopped (its lease ran out), or that waited in
    /// the cluster's queue (`node` "the queue"): this node becomes its owner (`ClusterHooks.adopt`).
    public func adopt(_ record: JobRecord, from node: String) {
        queue.async { [jobs] in jobs.cluster.adopt(record, from: node, in: jobs) }
    }

    /// Says again which remote workers are attached (a `workers` event): a cluster node the others
    /// had forgotten (it was paused past its lease) lists them again.
    public func announceWorkers() {
        queue.async { [jobs] in
            if jobs.workers.pool.count > 0 { jobs.workers.announce(jobs) }
        }
    }

    /// No attempt starts (here or on a worker) while `mayStart` says no; `attemptsMayStart` pumps
    /// once it says yes again. `mayStart` is asked on `queue` and must not wait.
    public func gateAttempts(on mayStart: @escaping @Sendable () -> Bool) {
        queue.async { [jobs] in jobs.cluster.attemptGate = mayStart }
    }

    /// The attempt gate says yes again: the queued jobs start.
    public func attemptsMayStart() {
        queue.async { [jobs] in jobs.pump() }
    }

    /// Stops every attempt this dispatcher runs (a local run's cancel flag, a worker's `cancel`):
    /// a cluster node whose leases may have lapsed, since another node may run the jobs now. Returns
    /// (in `reply`, on `queue`) the jobs it stopped.
    public func stopRunningAttempts(reply: @escaping @Sendable ([JobID]) -> Void = { _ in }) {
        queue.async { [jobs] in
            let running = jobs.table.all.filter { $0.state == .running }.map(\.id)
            for id in running { jobs.requestCancel(id) }
            reply(running)
        }
    }

    /// Background fetches (`--news-interval`) happen only while `gate` says so.
    public func gateBackgroundFetches(_ gate: @escaping @Sendable () -> Bool) {
        queue.async { [jobs] in jobs.cluster.backgroundFetchGate = gate }
    }

    /// Asks `claim` before each schedule's occurrence fires: on a cluster, one node wins each. Set it
    /// before `startSchedules`.
    public func claimScheduleOccurrences(through claim: @escaping OccurrenceClaim) {
        queue.async { [jobs] in jobs.cluster.occurrenceClaim = claim }
    }

    /// From now on `mirror` is told every pending webhook delivery after each change (on the
    /// notifier's file queue, in order), starting with those pending now: a cluster node copies them
    /// into Redis so that another node can take them over (`adoptDeliveries`).
    public func mirrorPendingDeliveries(to mirror: @escaping @Sendable ([WebhookDelivery]) -> Void) {
        queue.async { [webhooks] in webhooks.mirror(to: mirror) }
    }

    /// Takes over the pending webhook deliveries of `node`, which stopped: sent from here with the
    /// same ids and bodies, their attempts counted on.
    public func adoptDeliveries(_ deliveries: [WebhookDelivery], from node: String) {
        queue.async { [webhooks] in webhooks.adopt(deliveries, from: node) }
    }

    /// The kinds this dispatcher can run (itself or on an attached worker). Thread: any.
    public var runnableKinds: [JobKind] { runners.offered }

    /// Where pages of `kind`'s jobs come from. Thread: any.
    public func pageSource(for kind: JobKind) -> PageSource { runners.pageSource(for: kind) }
}
