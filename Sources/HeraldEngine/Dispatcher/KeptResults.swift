/// The results each job keeps for paging (a search's matches), and what they weigh: the length of
/// their JSON encoding, per job and in all. The dispatcher drops the oldest finished jobs' results
/// while the total is over `EngineConfiguration.keptResultBytes` (the jobs themselves stay), so the
/// memory they hold is bounded in bytes, not only by the number of finished jobs kept: one search
/// keeps up to `--max-results` matches and another none, so 500 finished jobs may hold a few
/// hundred KB or many MB. A plain value owned by the dispatcher queue.
struct KeptResults {
    private var items: [JobID: [JSONValue]] = [:]
    private var weights: [JobID: Int] = [:]
    /// Jobs whose results were dropped for the bound: a page of theirs says so instead of being empty.
    private var dropped: Set<JobID> = []
    /// The encoded length of every kept item of every job.
    private(set) var totalBytes = 0

    /// The job's kept results, oldest first; empty when it keeps none.
    subscript(job: JobID) -> [JSONValue] { items[job] ?? [] }

    /// How many results the job keeps.
    func count(of job: JobID) -> Int { items[job]?.count ?? 0 }

    /// The encoded length of the job's kept results.
    func bytes(of job: JobID) -> Int { weights[job] ?? 0 }

    /// Whether the job's results were dropped for the bound (`drop`).
    func wasDropped(_ job: JobID) -> Bool { dropped.contains(job) }

    /// Keeps `more` after the job's earlier results.
    mutating func append(_ more: some Collection<JSONValue>, for job: JobID) {
        guard !more.isEmpty else { return }
        let bytes = more.reduce(0) { $0 + JSONWriter.encode($1).count }
        items[job, default: []].append(contentsOf: more)
        weights[job, default: 0] += bytes
        totalBytes += bytes
    }

    /// Lets go of the job's results but remembers that it had some, for the bound.
    mutating func drop(_ job: JobID) {
        guard items[job] != nil else { return }
        remove(job)
        dropped.insert(job)
    }

    /// Forgets the job: its results, and that they were dropped (the job itself left memory).
    mutating func remove(_ job: JobID) {
        items.removeValue(forKey: job)
        totalBytes -= weights.removeValue(forKey: job) ?? 0
        dropped.remove(job)
    }
}
