/// The job object of the wire protocol and of the history file (docs/protocol.md, "JOB").
extension JobRecord {
    public var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id.rawValue),
            "kind": .string(kind.rawValue),
            "state": .string(state.rawValue),
            "params": .object(params),
            "progress": progress.json,
            "createdAt": .int(createdAt),
        ]
        if !after.isEmpty { object["after"] = .array(after.map { .string($0.rawValue) }) }
        if let requestId { object["requestId"] = .string(requestId) }
        if let startedAt { object["startedAt"] = .int(startedAt) }
        if let finishedAt { object["finishedAt"] = .int(finishedAt) }
        if let error { object["error"] = .string(error) }
        if let summary { object["summary"] = .object(summary) }
        if let exit { object["exit"] = .object(exit) }
        if let attempt { object["attempt"] = .int(Int64(attempt)) }
        if let worker { object["worker"] = .string(worker) }
        return .object(object)
    }

    /// Reads a job back from history; nil when the value is not a job this version understands.
    public init?(json: JSONValue) {
        guard let object = json.objectValue,
            let id = object["id"]?.stringValue, JobID.isWellFormed(id),
            let kind = object["kind"]?.stringValue.flatMap({ $0.isEmpty ? nil : JobKind($0) }),
            let state = object["state"]?.stringValue.flatMap(JobState.init(rawValue:)),
            let params = object["params"]?.objectValue,
            let createdAt = object["createdAt"]?.intValue
        else { return nil }
        let progress = object["progress"].flatMap(JobProgress.init(json:)) ?? JobProgress()
        let after = object["after"]?.arrayValue?.compactMap { $0.stringValue.map(JobID.init) } ?? []
        self.init(
            id: JobID(id), kind: kind, params: params, after: after, requestId: object["requestId"]?.stringValue,
            state: state, progress: progress, createdAt: createdAt, startedAt: object["startedAt"]?.intValue,
            finishedAt: object["finishedAt"]?.intValue, error: object["error"]?.stringValue,
            summary: object["summary"]?.objectValue)
        self.exit = object["exit"]?.objectValue
        self.attempt = object["attempt"]?.intValue.map { Int($0) }
        self.worker = object["worker"]?.stringValue
    }
}

extension JobProgress {
    /// The job object's `progress`: the same fields as the `progress` event.
    public var json: JSONValue {
        var object = JSONObject()
        write(into: &object)
        return .object(object)
    }

    /// Adds the progress fields to `object`, in this order: `completed`, `total`, `fraction`,
    /// `message`, `rate`, `eta`; `message`, `rate` and `eta` are null until known. The one encoding
    /// of progress, for the job object and the `progress` event alike (docs/protocol.md). The three
    /// numbers are `JSONValue.number`: `"fraction":1`, not `1.0`; they read back as the same doubles.
    func write(into object: inout JSONObject) {
        object["completed"] = .int(completed)
        object["total"] = .int(total)
        object["fraction"] = .number(fraction)
        object["message"] = message.map(JSONValue.string) ?? .null
        object["rate"] = rate.map(JSONValue.number) ?? .null
        object["eta"] = eta.map(JSONValue.number) ?? .null
    }

    /// Reads progress back from history, rate and ETA included, so that a job read from the journal
    /// or the archive is the same object it was in memory.
    init?(json: JSONValue) {
        guard let completed = json["completed"]?.intValue, let total = json["total"]?.intValue else { return nil }
        self.init(
            completed: completed, total: total, message: json["message"]?.stringValue, rate: json["rate"]?.doubleValue,
            eta: json["eta"]?.doubleValue)
    }
}
