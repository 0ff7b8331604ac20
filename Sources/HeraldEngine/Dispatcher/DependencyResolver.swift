/// What jobs' dependencies (`after`) call for, as a pure function of the jobs' states: a waiting job
/// whose dependencies all succeeded is queued; a waiting or queued job with a dependency that ended
/// other than succeeded, or that is no longer known, is cancelled. Each step sees the ones before
/// it, so a cancel runs down a chain of dependents in one call. The dispatcher applies the steps.
enum DependencyResolver {
    enum Step: Equatable {
        case cancel(JobID, reason: String)
        case queue(JobID)
    }

    /// The steps for `jobs` (oldest first), where jobs another cluster node runs are known by
    /// `foreign` states only.
    static func steps(for jobs: [JobRecord], foreign: [JobID: JobState] = [:]) -> [Step] {
        var states = Dictionary(jobs.map { ($0.id, $0.state) }, uniquingKeysWith: { _, last in last })
        var steps: [Step] = []
        var changed = true
        while changed {
            changed = false
            for record in jobs {
                guard let state = states[record.id], state == .waiting || (state == .queued && !record.after.isEmpty) else { continue }
                let dependencies = record.after.map { ($0, states[$0] ?? foreign[$0]) }
                if let (failed, ended) = dependencies.first(where: { $0.1.map { $0.isTerminal && $0 != .succeeded } ?? false }) {
                    steps.append(.cancel(record.id, reason: "dependency \(failed) ended \(ended!.rawValue)"))
                    states[record.id] = .cancelled
                    changed = true
                } else if let (missing, _) = dependencies.first(where: { $0.1 == nil }) {
                    steps.append(.cancel(record.id, reason: "dependency \(missing) is no longer known"))
                    states[record.id] = .cancelled
                    changed = true
                } else if state == .waiting, dependencies.allSatisfy({ $0.1 == .succeeded }) {
                    steps.append(.queue(record.id))
                    states[record.id] = .queued
                    changed = true
                }
            }
        }
        return steps
    }
}
