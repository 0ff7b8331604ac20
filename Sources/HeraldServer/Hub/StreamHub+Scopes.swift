import HeraldAccess
import HeraldEngine

/// Scoped streams (docs/security.md): a connection whose principal sees only some jobs (a share
/// link, a key or JWT naming `jobs` or `kinds`) reads the same shared ring as everyone, skipping the
/// frames of other jobs and those of no job (news, workers); its snapshots and resumes hold only its
/// jobs. Its `seq` has holes by design. Thread: the service thread.
extension StreamHub {
    /// Whether a principal limited to `scope` may see `job` (its kind as the stream told it; a job
    /// of unknown kind is outside any kind scope).
    func admits(_ job: JobID, in scope: AccessScope) -> Bool {
        if let jobs = scope.jobs, !jobs.contains(job.rawValue) { return false }
        if let kinds = scope.kinds {
            guard let kind = jobKinds[job], kinds.contains(kind) else { return false }
        }
        return true
    }

    /// The part of a snapshot a scope sees: its jobs, and no news or workers.
    func scoped(_ snapshot: Snapshot, to scope: AccessScope) -> Snapshot {
        Snapshot(
            epoch: snapshot.epoch, seq: snapshot.seq,
            jobs: snapshot.jobs.filter { scope.contains(kind: $0.kind.rawValue, job: $0.id.rawValue) }, news: NewsFeed(capacity: 0),
            limits: snapshot.limits, workers: [])
    }

    /// The snapshot's `scope` field: the jobs and kinds a scoped stream is limited to.
    static func scopeObject(_ scope: AccessScope) -> JSONObject {
        var object: JSONObject = [:]
        if let jobs = scope.jobs { object["jobs"] = .array(jobs.sorted().map { .string($0) }) }
        if let kinds = scope.kinds { object["kinds"] = .array(kinds.sorted().map { .string($0) }) }
        return object
    }

    /// Every snapshot teaches the kinds of the jobs it holds (a connection may be scoped to kinds of
    /// jobs whose `job` events went by before it connected).
    mutating func learnKinds(from snapshot: Snapshot) {
        for record in snapshot.jobs { jobKinds.learn(record) }
    }

    /// A command or request about `job` from `principal`: nil when its scope reaches the job, else
    /// `not_found`, as for a job that does not exist (a scope does not tell what lies outside it).
    func refusal(of job: String, to principal: Principal) -> EngineError? {
        guard !principal.scope.isUnlimited else { return nil }
        return admits(JobID(job), in: principal.scope) ? nil : EngineError(.notFound, "no job \(job)")
    }
}
