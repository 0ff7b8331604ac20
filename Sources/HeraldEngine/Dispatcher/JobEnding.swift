/// How a run's outcome ends its job: the terminal state, the error shown, the summary kept. Pure.
struct JobEnding: Equatable {
    let state: JobState
    let error: String?
    let summary: JSONObject?

    /// A run that returned after a cancel was asked for, or that stopped for one, ends `cancelled`
    /// (a run that returned anyway has its result dropped); one that threw anything else, `failed`.
    init(_ outcome: Result<JSONObject, any Error>, wasCancelled: Bool) {
        switch outcome {
        case .success where wasCancelled, .failure(is JobCancelled):
            (state, error, summary) = (.cancelled, wasCancelled ? "cancelled by request" : "cancelled", nil)
        case .success(let value):
            (state, error, summary) = (.succeeded, nil, value)
        case .failure(let failure):
            (state, error, summary) = (.failed, (failure as? JobFailure)?.message ?? String(describing: failure), nil)
        }
    }
}
