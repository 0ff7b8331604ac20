import HeraldEngine

/// The kind of each job the stream told of (its `job` events and snapshots), so a connection scoped
/// to kinds can tell whether a progress, log or results frame, which names only its job, is for it.
/// Bounded: a finished job's kind is kept until `keptFinished` newer jobs finished, long enough for
/// the pages asked of it; unfinished jobs are always known.
///
/// A plain value owned by the hub (service thread).
struct JobKinds {
    private var kinds: [JobID: String] = [:]
    /// Finished jobs in the order they finished, oldest at `finishedStart`.
    private var finished: [JobID] = []
    private var finishedStart = 0
    let keptFinished: Int

    init(keptFinished: Int = 10_000) { self.keptFinished = keptFinished }

    subscript(job: JobID) -> String? { kinds[job] }

    var count: Int { kinds.count }

    mutating func learn(_ record: JobRecord) {
        let known = kinds.updateValue(record.kind.rawValue, forKey: record.id) != nil
        guard record.state.isTerminal, !(known && isFinished(record.id)) else { return }
        finished.append(record.id)
        if finished.count - finishedStart > keptFinished {
            kinds.removeValue(forKey: finished[finishedStart])
            finishedStart += 1
            if finishedStart > keptFinished {
                finished.removeFirst(finishedStart)
                finishedStart = 0
            }
        }
    }

    /// Only the newest few are searched: a job's terminal event comes once, and a retried job is
    /// queued again before it can finish again.
    private func isFinished(_ job: JobID) -> Bool {
        finished[max(finishedStart, finished.count - 4)...].contains(job)
    }
}
