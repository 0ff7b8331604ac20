/// A dispatcher's remote workers (docs/workers.md): who is attached and holds which attempts, how
/// to reach each one's connection, those dropped for their lease whose connection has not closed
/// yet (their reports are answered `lease_lost`), the list the last `workers` event carried, and
/// the attempts cancelled for running past their kind's timeout (their `fail` is a timeout, not a
/// cancel). A plain value owned by the dispatcher queue.
struct RemoteWorkers {
    var pool = WorkerPool()
    var directives: [WorkerSession: @Sendable (WorkerDirective) -> Void] = [:]
    var expired: [WorkerSession: @Sendable (WorkerDirective) -> Void] = [:]
    var lastAnnounced: [WorkerInfo] = []
    var timedOut: Set<JobID> = []
}
