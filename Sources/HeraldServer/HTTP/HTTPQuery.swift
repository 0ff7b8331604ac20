/// Which REST answer an engine reply is rendered into.
public enum HTTPQuery: Sendable, Equatable {
    case healthz, metrics, news, jobs, job, start, cancel, workers, history
    case results(job: String)
    case log(job: String)
}
