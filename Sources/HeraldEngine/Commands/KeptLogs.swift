/// Command jobs' kept logs that live in memory between runs and files: those of jobs waiting for a
/// retry (the next attempt writes on) and those of ended jobs whose file is being written (pages
/// read them here until then). A plain value owned by the dispatcher queue.
struct KeptLogs {
    var waitingForRetry: [JobID: LogKeeper] = [:]
    var beingWritten: [JobID: LogKeeper] = [:]

    /// The job's log while it is in one of the two.
    func log(of id: JobID) -> LogKeeper? { waitingForRetry[id] ?? beingWritten[id] }
}
