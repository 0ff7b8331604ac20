import HeraldSupport

/// Asked before a gated job launches; answers whether it may (on any thread).
public typealias LaunchGate = @Sendable (JobRecord, @escaping @Sendable (Bool) -> Void) -> Void

/// Asked before a schedule's occurrence (its name, epoch seconds) fires; answers whether this node
/// fires it (on any thread).
public typealias OccurrenceClaim = @Sendable (String, Int64, @escaping @Sendable (Bool) -> Void) -> Void

/// What only a cluster node sets on its dispatcher, and what the dispatcher does with it: the states
/// of other nodes' jobs that its jobs wait for, the gate on launches of kinds whose `concurrency`
/// holds across the cluster, the gate on background news fetches, and taking over a stopped node's
/// jobs. Empty and inert on a single server.
///
/// Thread: every member runs on the dispatcher queue, reached through the dispatcher's public calls
/// (`JobLifecycle+Cluster`), which pass the dispatcher in. Not Sendable.
final class ClusterHooks {
    /// Where a job of a gated kind stands with the gate.
    private enum GateState: Equatable {
        case asked
        case cleared
        /// Not yet: asked again after `reopen`.
        case refused
    }

    /// The last known states of jobs another node runs that this dispatcher's jobs wait for (`after`).
    private(set) var foreignStates: [JobID: JobState] = [:]
    /// Asked before a job of `gatedKinds` launches; nil: no gate.
    private var launchGate: LaunchGate?
    private var gatedKinds: Set<JobKind> = []
    private var gateStates: [JobID: GateState] = [:]
    /// Asked before every attempt starts (a local run, or one handed to a worker), gated or not;
    /// nil: always. A cluster node says no while its leases may be lapsing (`LeaseStanding`).
    var attemptGate: (@Sendable () -> Bool)?
    /// Asked before each background news fetch; nil: always fetch (one node of a cluster fetches).
    var backgroundFetchGate: (@Sendable () -> Bool)?
    /// Asked before a schedule's occurrence fires; nil: fire (a single server). On a cluster one
    /// node wins each occurrence (`Scheduler`).
    var occurrenceClaim: OccurrenceClaim?

    /// Most foreign states kept while none of them is waited for.
    private static let foreignStatesKept = 1000

    func gate(_ kinds: Set<JobKind>, through gate: @escaping LaunchGate) {
        gatedKinds = kinds
        launchGate = gate
    }

    /// Notes other nodes' job states: `register` adds jobs a start is about to name; otherwise only
    /// jobs already known are updated. Jobs `table` holds are this dispatcher's own business. Returns
    /// whether any state changed.
    func note(_ states: [JobID: JobState], register: Bool, table: JobTable) -> Bool {
        var changed = false
        for (id, state) in states where !table.contains(id) && (register || foreignStates[id] != nil) {
            changed = changed || foreignStates[id] != state
            foreignStates[id] = state
        }
        // Bounded: past the cap, only the states unfinished jobs wait for stay. (Not at every change:
        // a state registered for a start not yet made must outlive other nodes' events.)
        if changed, foreignStates.count > Self.foreignStatesKept {
            let waitedFor = table.waitedFor
            foreignStates = foreignStates.filter { waitedFor.contains($0.key) }
        }
        return changed
    }

    /// Whether `record` may launch now: never while `attemptGate` says no; asks the gate when it has not yet, and pumps the dispatcher
    /// when the gate grants it.
    func allowsLaunch(_ record: JobRecord, in jobs: JobLifecycle) -> Bool {
        if let attemptGate, !attemptGate() { return false }
        guard let launchGate, gatedKinds.contains(record.kind) else { return true }
        switch gateStates[record.id] {
        case .cleared: return true
        case .asked, .refused: return false
        case nil:
            gateStates[record.id] = .asked
            let id = record.id
            launchGate(record) { [weak jobs] granted in
                guard let jobs else { return }
                jobs.queue.async {
                    guard jobs.cluster.gateStates[id] == .asked else { return }
                    jobs.cluster.gateStates[id] = granted ? .cleared : .refused
                    if granted { jobs.pump() }
                }
            }
            return false
        }
    }

    /// A place may have freed for jobs of `kinds`: their refused jobs will ask the gate again.
    /// Returns whether any will.
    func reopen(_ kinds: Set<JobKind>, table: JobTable) -> Bool {
        var reopened = false
        for (id, state) in gateStates {
            guard let record = table[id], !record.state.isTerminal else {
                gateStates.removeValue(forKey: id)
                continue
            }
            if state == .refused, kinds.contains(record.kind) {
                gateStates.removeValue(forKey: id)
                reopened = true
            }
        }
        return reopened
    }

    /// Takes over `record`, a job that `node` held when it stopped, or that waited in the cluster's
    /// queue. A queued or waiting job waits here, without an event of its own: its next one
    /// (`running`) says which node runs it. A running one lost its attempt: it is queued for another
    /// when its kind retries and attempts are left, else it fails naming the node.
    func adopt(_ record: JobRecord, from node: String, in jobs: JobLifecycle) {
        // A job this node ran before it restarted is in its own history as `interrupted`.
        let known = jobs.table[record.id]
        guard known == nil || known?.state == .interrupted, !record.state.isTerminal, !jobs.isShuttingDown else { return }
        let here = jobs.configuration.nodeName
        var adopted = record
        adopted.node = here
        jobs.table.insert(adopted)
        // Taken from the cluster's queue or from a stopped node: Redis gave it its place already.
        gateStates[record.id] = .cleared
        guard let runner = jobs.runners[record.kind] else {
            jobs.finishWithoutRunning(
                record.id, state: record.state == .running ? .failed : .cancelled,
                reason: "node \(node) stopped, and the node that took its jobs over does not run \(record.kind)")
            return
        }
        if record.state == .running {
            let attempt = record.attempt ?? 1
            if let policy = runner.retryPolicy, attempt <= policy.retries {
                jobs.transition(record.id, to: .queued) { next in
                    next.node = here
                    next.error = "node \(node) stopped during attempt \(attempt); retrying on \(here ?? "this node")"
                }
            } else {
                jobs.transition(record.id, to: .failed) { next in
                    next.node = here
                    next.markEnded(error: "node \(node) stopped while it ran the job", at: WallClock.millis())
                }
                jobs.statistics.recordFinish(kind: record.kind, state: .failed, seconds: nil)
            }
        }
        jobs.resolveDependents()
        jobs.pump()
    }
}
