/// What only a cluster node sets on its dispatcher (`JobDispatcher+Cluster`): the states of other
/// nodes' jobs that its jobs wait for, the gate on launches of kinds whose `concurrency` holds
/// across the cluster, and the gate on background news fetches. Empty on a single server. A plain
/// value owned by the dispatcher queue.
struct ClusterHooks {
    /// The last known states of jobs another node runs that this dispatcher's jobs wait for (`after`).
    var foreignStates: [JobID: JobState] = [:]
    /// Asked before a job of `gatedKinds` launches; nil: no gate.
    var launchGate: LaunchGate?
    var gatedKinds: Set<JobKind> = []
    /// Where each gated job stands with the gate.
    var gateStates: [JobID: GateState] = [:]
    /// Asked before each background news fetch; nil: always fetch (one node of a cluster fetches).
    var backgroundFetchGate: (@Sendable () -> Bool)?

    /// Whether `record` must ask the gate before it launches.
    func isGated(_ record: JobRecord) -> Bool { launchGate != nil && gatedKinds.contains(record.kind) }

    /// Notes other nodes' job states: `register` adds jobs a start is about to name; otherwise only
    /// jobs already known are updated. Jobs `isHeld` says this dispatcher holds are its own business.
    /// Returns whether any state changed.
    mutating func note(_ states: [JobID: JobState], register: Bool, isHeld: (JobID) -> Bool) -> Bool {
        var changed = false
        for (id, state) in states where !isHeld(id) && (register || foreignStates[id] != nil) {
            changed = changed || foreignStates[id] != state
            foreignStates[id] = state
        }
        return changed
    }
}
