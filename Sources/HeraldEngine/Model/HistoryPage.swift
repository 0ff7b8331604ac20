/// One page of job history: jobs newest first (by `createdAt`, then id), and where the next page
/// starts, nil when there are no older jobs that match.
public struct HistoryPage: Sendable, Equatable {
    public let jobs: [JobRecord]
    public let next: HistoryCursor?

    public init(jobs: [JobRecord], next: HistoryCursor?) {
        self.jobs = jobs
        self.next = next
    }

    /// `{"jobs":[JOB,…],"next":"…"|null}`: the answer of `GET /api/jobs?…` (docs/rest.md).
    public var json: JSONValue {
        ["jobs": .array(jobs.map(\.json)), "next": next.map { .string($0.text) } ?? .null]
    }
}
