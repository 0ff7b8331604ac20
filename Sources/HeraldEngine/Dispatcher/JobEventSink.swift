/// How a job reaches the dispatcher; implemented by `JobDispatcher`. Thread: any caller.
protocol JobEventSink: Sendable {
    func results(job: JobID, items: [JSONValue])
    func news(job: JobID, headlines: [String])
    func log(job: JobID, lines: [LogLine], skipped: Int, first: Int)
    func uncoalescedProgress(job: JobID, _ progress: JobProgress) -> Bool
}
