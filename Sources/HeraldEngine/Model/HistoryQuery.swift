/// A question for job history (`GET /api/jobs?state=&kind=&before=&limit=`): which jobs, older than
/// which cursor, how many. A plain value: parsed on the service thread, answered by the engine.
public struct HistoryQuery: Sendable, Equatable {
    /// Only jobs in one of these states; nil: any state.
    public var states: Set<JobState>?
    /// Only jobs of one of these kinds; nil: any kind.
    public var kinds: Set<JobKind>?
    /// Only jobs strictly older than this (a previous page's `next`); nil: from the newest.
    public var before: HistoryCursor?
    /// Jobs per page, `limits`.
    public var limit: Int
    /// Only jobs started by this name (`JobRecord.startedBy`); nil: anyone's.
    public var startedBy: String?
    /// Only these jobs (a scoped principal's, docs/security.md); nil: any job. Never read from a client.
    public var jobs: Set<String>?

    public static let defaultLimit = 50
    public static let limits = 1...500
    /// The query-string names that ask for a history page instead of the snapshot's job list.
    public static let parameterNames = ["state", "kind", "before", "limit", "startedBy"]

    public init(states: Set<JobState>? = nil, kinds: Set<JobKind>? = nil, before: HistoryCursor? = nil, limit: Int = defaultLimit) {
        self.states = states
        self.kinds = kinds
        self.before = before
        self.limit = limit
    }

    /// Whether `record` belongs on a page of this query (its filters and its cursor; not the limit).
    public func admits(_ record: JobRecord) -> Bool {
        if let states, !states.contains(record.state) { return false }
        if let kinds, !kinds.contains(record.kind) { return false }
        if let before, !(HistoryCursor(record) < before) { return false }
        if let startedBy, record.startedBy != startedBy { return false }
        if let jobs, !jobs.contains(record.id.rawValue) { return false }
        return true
    }

    /// Reads a query string's parameters: nil when it names none of `parameterNames` (the caller
    /// answers as it did before history pages existed), else the query or a `bad_request` saying
    /// which parameter is wrong and what it takes. An empty value is the same as leaving it out;
    /// `state` and `kind` take comma-separated lists.
    public static func parse(_ parameters: [String: String]) -> Result<HistoryQuery, EngineError>? {
        guard parameterNames.contains(where: { parameters[$0] != nil }) else { return nil }
        func present(_ name: String) -> String? { parameters[name].flatMap { $0.isEmpty ? nil : $0 } }
        var query = HistoryQuery()
        if let text = present("state") {
            var states = Set<JobState>()
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let state = JobState(rawValue: String(name)) else {
                    let known = JobState.allCases.map(\.rawValue).joined(separator: ", ")
                    return .failure(
                        .badRequest(field: "state", "\"\(name)\" is not a job state; use one or more of \(known), separated by commas"))
                }
                states.insert(state)
            }
            query.states = states
        }
        if let text = present("kind") {
            var kinds = Set<JobKind>()
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard isKindName(name) else {
                    return .failure(
                        .badRequest(field: "kind", "\"\(name)\" is not a kind name; use one or more names like sort, separated by commas"))
                }
                kinds.insert(JobKind(String(name)))
            }
            query.kinds = kinds
        }
        if let text = present("before") {
            guard let cursor = HistoryCursor(text: text) else {
                return .failure(.badRequest(field: "before", "\"\(text)\" is not a cursor; pass the \"next\" of a previous page as it is"))
            }
            query.before = cursor
        }
        if let text = present("startedBy") {
            guard text.utf8.count <= 256 else { return .failure(.badRequest(field: "startedBy", "must be a name of at most 256 bytes")) }
            query.startedBy = text
        }
        if let text = present("limit") {
            guard let limit = Int(text), limits.contains(limit) else {
                return .failure(.badRequest(field: "limit", "must be an integer from \(limits.lowerBound) to \(limits.upperBound)"))
            }
            query.limit = limit
        }
        return .success(query)
    }

    /// 1–64 letters, digits, `-` or `_`: every kind name Herald accepts, and nothing to escape.
    private static func isKindName(_ name: Substring) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || $0 == 0x2D || $0 == 0x5F
            }
    }
}
