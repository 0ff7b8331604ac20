/// The jobs a dispatcher holds, in creation order, with the request ids of their starts and the
/// results they keep for paging, and the rule that keeps them bounded (`forgetOld`). A plain value
/// owned by the dispatcher queue: no I/O, no clock, tested alone.
struct JobTable {
    private var records: [JobID: JobRecord] = [:]
    /// Job ids in creation order.
    private(set) var order: [JobID] = []
    /// Starts' `requestId`s, the newest `requestIdsKept`: a start sent again answers with its job.
    private var requestIds: [String: JobID] = [:]
    private var requestIdOrder: [String] = []
    let requestIdsKept: Int
    /// Search matches kept for paging, and their weight in bytes (bounded by `forgetOld`).
    var results = KeptResults()

    init(requestIdsKept: Int) {
        self.requestIdsKept = requestIdsKept
    }

    /// A job's record; setting one updates a job already held (`insert` adds one).
    subscript(id: JobID) -> JobRecord? {
        get { records[id] }
        set {
            guard let newValue, records[id] != nil else { return }
            records[id] = newValue
        }
    }

    func contains(_ id: JobID) -> Bool { records[id] != nil }

    var count: Int { order.count }

    /// Every record, oldest first.
    var all: [JobRecord] { order.compactMap { records[$0] } }

    /// Adds a job, or replaces the record of one held (its place in the order stays).
    mutating func insert(_ record: JobRecord) {
        if records.updateValue(record, forKey: record.id) == nil { order.append(record.id) }
    }

    /// The job an earlier start with this `requestId` made, while it is remembered and held.
    func job(forRequest requestId: String) -> JobRecord? { requestIds[requestId].flatMap { records[$0] } }

    mutating func remember(requestId: String, for id: JobID) {
        if requestIds.updateValue(id, forKey: requestId) == nil { requestIdOrder.append(requestId) }
        if requestIdOrder.count > requestIdsKept {
            requestIds.removeValue(forKey: requestIdOrder.removeFirst())
        }
    }

    /// The unfinished jobs of `kind`, oldest first.
    func unfinished(of kind: JobKind) -> [JobRecord] {
        order.compactMap { records[$0] }.filter { $0.kind == kind && !$0.state.isTerminal }
    }

    /// The jobs that unfinished jobs wait for (`after`).
    var waitedFor: Set<JobID> { Set(order.compactMap { records[$0] }.filter { !$0.state.isTerminal }.flatMap(\.after)) }

    /// Keeps memory and snapshots bounded: the oldest finished jobs beyond `retainedFinished` leave
    /// (returned, oldest first, for the history archive; a finished job an unfinished one waits for
    /// stays, or the dependent could no longer tell that it succeeded). Results are bounded apart
    /// from jobs: while the finished jobs' results weigh more than `keptResultBytes`, the oldest
    /// finished jobs' results are dropped (the newest such job always keeps its own) and the jobs
    /// stay, in snapshots too, so a viewer still learns how they ended; a page of their results
    /// says they were dropped. A search keeps up to `--max-results` matches and a fetch none, so a
    /// bound on the number of jobs alone lets their memory wander by megabytes with the mix.
    mutating func forgetOld(retainedFinished: Int, keptResultBytes: Int) -> [JobRecord] {
        let pinned = waitedFor
        let finished = order.filter { records[$0]?.state.isTerminal == true && !pinned.contains($0) }
        let excess = max(0, finished.count - retainedFinished)
        let leaving = finished.prefix(excess).compactMap { records[$0] }
        if !leaving.isEmpty {
            let ids = Set(leaving.map(\.id))
            order.removeAll { ids.contains($0) }
            for id in ids {
                records.removeValue(forKey: id)
                results.remove(id)
            }
        }
        if results.totalBytes > keptResultBytes {
            let holders = finished.dropFirst(excess).filter { results.bytes(of: $0) > 0 }.dropLast()
            for id in holders where results.totalBytes > keptResultBytes { results.drop(id) }
        }
        return leaving
    }
}
