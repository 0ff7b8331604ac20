/// What `GET /api/schedules` says of one schedule (docs/schedules.md). A plain value; any thread.
public struct ScheduleStatus: Sendable, Equatable {
    /// The last occurrence handled: when (epoch milliseconds), the job it started (none when it
    /// was skipped), and its outcome: the job's state once known, else `started`, `skipped` or `queued`.
    public struct Last: Sendable, Equatable {
        public var at: Int64
        public var job: JobID?
        public var outcome: String
    }

    public let declaration: ScheduleDeclaration
    public let paused: Bool
    /// Epoch milliseconds of the next occurrence, before jitter; nil when paused or never again.
    public let next: Int64?
    public let last: Last?
    public let fired: Int
    public let skipped: Int
    public let missed: Int
    public let lateness: Double?

    public var json: JSONValue {
        var object: JSONObject = [
            "name": .string(declaration.name), "kind": .string(declaration.kind.rawValue), "params": .object(declaration.params),
            "paused": .bool(paused), "overlap": .string(declaration.overlap.rawValue), "catchUp": .string(declaration.catchUp.rawValue),
            "jitter": .number(declaration.jitter), "next": next.map { .int($0) } ?? .null,
            "fired": .int(Int64(fired)), "skipped": .int(Int64(skipped)), "missed": .int(Int64(missed)),
        ]
        switch declaration.schedule.rule {
        case .cron(let expression):
            object["cron"] = .string(expression.text)
            object["timezone"] = .string(declaration.timeZoneName)
        case .every(let interval):
            object["every"] = .string(interval.text)
        }
        if let last {
            var entry: JSONObject = ["at": .int(last.at), "outcome": .string(last.outcome)]
            entry["job"] = last.job.map { .string($0.rawValue) } ?? .null
            object["last"] = .object(entry)
        } else {
            object["last"] = .null
        }
        if let lateness { object["lateness"] = .number(lateness) }
        return .object(object)
    }
}
