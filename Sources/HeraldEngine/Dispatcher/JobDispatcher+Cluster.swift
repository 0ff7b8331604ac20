import Dispatch

/// What a cluster node asks of its dispatcher besides the `JobEngine` messages: to check a start
/// before the cluster admits it, and whether it has room to run one more job of a kind.
extension JobDispatcher {
    /// Checks `request` as a start would (request id, kind, params; not dependencies, which only a
    /// start with `after` has, and which the node that takes it checks), without making a job: the params normalised (defaults filled in), or why it would be refused. `reply` runs on
    /// `queue`. Thread: any; never waits.
    public func check(_ request: StartRequest, reply: @escaping @Sendable (Result<JSONObject, EngineError>) -> Void) {
        queue.async { [self] in
            if let refusal = requestIdRefusal(request) { return reply(.failure(refusal)) }
            reply(checkedParams(request))
        }
    }

    /// Whether one more job of `kind` would start now: a remote worker with a free slot runs it, or
    /// a local one is free and the kind runs here, within the kind's limit. Thread: any but `queue`;
    /// waits for the queue (a cluster node's command queue asks).
    public func hasRoom(for kind: JobKind) -> Bool {
        queue.sync {
            guard !isShuttingDown else { return false }
            // Queued jobs of its own come first.
            let waiting = table.all.contains { $0.state == .queued && $0.kind == kind }
            return !waiting && freeSlot(for: kind) != nil
        }
    }

    /// The states of jobs other cluster nodes run, as the cluster's view last saw them. `register`:
    /// jobs a start is about to name in `after` (so the start may name them); otherwise only jobs
    /// already known are updated, and a change lets the jobs that wait for them go on (or be
    /// cancelled, when a dependency ended other than `succeeded`). Thread: any; never waits.
    public func noteForeignJobs(_ states: [JobID: JobState], register: Bool = false) {
        queue.async { [self] in
            guard cluster.note(states, register: register, isHeld: { table.contains($0) }) else { return }
            resolveDependents()
            pump()
            // Bounded: past a thousand, only the jobs unfinished jobs wait for stay. (Not at every
            // change: a state registered for a start not yet made must outlive other nodes' events.)
            if cluster.foreignStates.count > 1000 {
                let waitedFor = table.waitedFor
                cluster.foreignStates = cluster.foreignStates.filter { waitedFor.contains($0.key) }
            }
        }
    }

    /// Asks for consent before launching a job of `kinds` (a cluster node: their `concurrency` holds
    /// across the cluster, and a start with dependencies kept here may run only once Redis gives it a
    /// place). `gate` answers on any thread; a refusal stands until `reopenGates`. Jobs taken over or
    /// from the cluster's queue (`adopt`) need no consent. Thread: any; never waits.
    public func gateLaunches(of kinds: Set<JobKind>, through gate: @escaping LaunchGate) {
        queue.async { [self] in
            cluster.gatedKinds = kinds
            cluster.launchGate = gate
        }
    }

    /// A place may have freed for jobs of `kinds` (one ended somewhere): their refused jobs ask the
    /// gate again. Thread: any; never waits.
    public func reopenGates(for kinds: Set<JobKind>) {
        queue.async { [self] in
            var reopened = false
            for (id, state) in cluster.gateStates {
                guard let record = table[id], !record.state.isTerminal else {
                    cluster.gateStates.removeValue(forKey: id)
                    continue
                }
                if state == .refused, kinds.contains(record.kind) {
                    cluster.gateStates.removeValue(forKey: id)
                    reopened = true
                }
            }
            if reopened { pump() }
        }
    }

    /// Whether `record` may launch now; asks the gate when it has not yet. Thread: `queue`.
    func passesGate(_ record: JobRecord) -> Bool {
        guard cluster.isGated(record), let launchGate = cluster.launchGate else { return true }
        switch cluster.gateStates[record.id] {
        case .cleared: return true
        case .asked, .refused: return false
        case nil:
            cluster.gateStates[record.id] = .asked
            let id = record.id
            launchGate(record) { [weak self] granted in
                guard let self else { return }
                queue.async { [self] in
                    guard cluster.gateStates[id] == .asked else { return }
                    cluster.gateStates[id] = granted ? .cleared : .refused
                    if granted { pump() }
                }
            }
            return false
        }
    }

    /// Says again which remote workers are attached (a `workers` event): a cluster node the others
    /// had forgotten (it was paused past its lease) lists them again. Thread: any; never waits.
    public func announceWorkers() {
        queue.async { [self] in
            let infos = remote.pool.infos
            guard !infos.isEmpty else { return }
            remote.lastAnnounced = infos
            emit(.workers(infos))
        }
    }

    /// The kinds this dispatcher can run (itself or on an attached worker). Thread: any.
    public var runnableKinds: [JobKind] { queue.sync { offeredKinds } }
}

/// Asked before a gated job launches; answers whether it may (on any thread).
public typealias LaunchGate = @Sendable (JobRecord, @escaping @Sendable (Bool) -> Void) -> Void

/// Where a job of a gated kind stands with the gate.
enum GateState: Equatable {
    case asked
    case cleared
    /// Not yet: asked again after `reopenGates`.
    case refused
}

/// Where a kind's result pages come from (a cluster node asks, to read them from any node).
public enum PageSource: Sendable, Equatable {
    /// The items its `results` events carried (search matches).
    case streamedResults
    /// Its kept log (a command job's output lines).
    case log
    /// Files on the node that ran it (sort's numbers): only that node can read them.
    case runningNode
}

extension JobDispatcher {
    /// Where pages of `kind`'s jobs come from. Thread: any.
    public func pageSource(for kind: JobKind) -> PageSource {
        guard let runner = runners[kind] else { return .runningNode }
        if runner is CommandRunner { return .log }
        if runner is SortRunner { return .runningNode }
        return .streamedResults
    }
}
