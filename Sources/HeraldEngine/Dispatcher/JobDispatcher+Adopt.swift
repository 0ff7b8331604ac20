import Dispatch
import HeraldSupport

/// Taking over another cluster node's unfinished jobs when that node stopped (its lease ran out):
/// this node becomes their owner, so their next events are its own.
extension JobDispatcher {
    /// Adopts `record`, a job that `node` held when it stopped, or that waited in the cluster's queue
    /// (`node` "the queue"). A queued or waiting job waits here, without an event of its own: its next
    /// one (`running`) says which node runs it.
    /// A running one lost its attempt: it is queued for another when its kind retries and attempts
    /// are left, else it fails naming the node. Thread: any; hops onto `queue`, never waits.
    public func adopt(_ record: JobRecord, from node: String) {
        queue.async { [self] in
            // A job this node ran before it restarted is in its own history as `interrupted`.
            let known = table[record.id]
            guard known == nil || known?.state == .interrupted, !record.state.isTerminal, !isShuttingDown else { return }
            var adopted = record
            adopted.node = configuration.nodeName
            table.insert(adopted)
            // Taken from the cluster's queue or from a stopped node: Redis gave it its place already.
            cluster.gateStates[record.id] = .cleared
            guard let runner = runners[record.kind] else {
                finishWithoutRunning(
                    record.id, state: record.state == .running ? .failed : .cancelled,
                    reason: "node \(node) stopped, and the node that took its jobs over does not run \(record.kind)")
                return
            }
            if record.state == .running {
                let attempt = record.attempt ?? 1
                if let policy = runner.retryPolicy, attempt <= policy.retries {
                    transition(record.id, to: .queued) { next in
                        next.node = configuration.nodeName
                        next.error = "node \(node) stopped during attempt \(attempt); retrying on \(configuration.nodeName ?? "this node")"
                    }
                } else {
                    transition(record.id, to: .failed) { next in
                        next.node = configuration.nodeName
                        next.error = "node \(node) stopped while it ran the job"
                        next.finishedAt = WallClock.millis()
                    }
                    statistics.recordFinish(kind: record.kind, state: .failed, seconds: nil)
                }
            }
            resolveDependents()
            pump()
        }
    }
}
