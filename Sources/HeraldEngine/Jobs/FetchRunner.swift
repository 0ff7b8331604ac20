/// `fetch`: asks the news server once and publishes what it found.
///
/// Params: `background` (bool, default false) marks the fetches the dispatcher's news timer starts;
/// it changes nothing in the work, it only lets clients tell them apart.
/// Summary: `{"newItems": n}`.
public struct FetchRunner: JobRunner {
    public let kind = JobKind.fetch

    public init() {}

    /// Thread: the dispatcher queue.
    public func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject {
        try JobParams.refuseUnknown(params, allowed: ["background"])
        return ["background": .bool(try JobParams.bool(params, "background", default: false))]
    }

    /// Thread: the job's worker thread. The fetch itself is quick and cannot be interrupted, so a
    /// cancel is honoured before asking; once the answer is in, it is published rather than lost.
    public func run(_ context: JobContext) throws -> JSONObject {
        context.progress.report(completed: 0, total: 1, message: "asking the news server")
        try context.checkCancelled()
        let headlines = context.environment.newsSource.fetch()
        context.publishNews(headlines)
        context.progress.report(completed: 1, total: 1, message: headlines.isEmpty ? "nothing new" : "published")
        return ["newItems": .int(Int64(headlines.count))]
    }
}
