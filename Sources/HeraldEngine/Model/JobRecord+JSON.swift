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
        if let node { object["node"] = .string(node) }
        if let schedule { object["schedule"] = .string(schedule) }
        if let startedBy { object["startedBy"] = .string(startedBy) }
        if let cancelledBy { object["cancelledBy"] = .string(cancelledBy) }
        return .object(object)
    }

    /// Reads a job object back: a line of history, or the `job` of an event from a shared stream
    /// (`WireDecoder`). The inverse of `json`: every field comes back, so the job re-encodes to the
    /// same bytes. Refuses, naming the field (`job.progress.total`), what `json` could not have
    /// written: a job without its id, kind, state, params, progress or createdAt, or a field of another
    /// type. Optional fields may be absent or null; keys this version does not know are ignored.
    public init(decoding value: JSONValue, at path: String = "job") throws(EngineError) {
        let fields = try JSONFields(value, at: path)
        let id = try fields.jobID("id")
        // Kinds are open (a jobs file adds its own), but a kind must be a name.
        let kind = try fields.required("kind", "a kind name") { $0.stringValue.flatMap { $0.isEmpty ? nil : JobKind($0) } }
        let state = try fields.required("state", Self.stateWords) { $0.stringValue.flatMap(JobState.init(rawValue:)) }
        let params = try fields.object("params")
        let progress = try JobProgress(decoding: fields.required("progress", "an object") { $0 }, at: fields.name("progress"))
        let createdAt = try fields.int("createdAt")
        let after = try fields.optional("after", "an array of job ids") { value in
            value.arrayValue.flatMap { items in
                let ids = items.compactMap { $0.stringValue.flatMap { JobID.isWellFormed($0) ? JobID($0) : nil } }
                return ids.count == items.count ? ids : nil
            }
        }
        self.init(
            id: id, kind: kind, params: params, after: after ?? [], requestId: try fields.optionalString("requestId"),
            state: state, progress: progress, createdAt: createdAt, startedAt: try fields.optionalInt("startedAt"),
            finishedAt: try fields.optionalInt("finishedAt"), error: try fields.optionalString("error"),
            summary: try fields.optionalObject("summary"))
        self.exit = try fields.optionalObject("exit")
        self.attempt = try fields.optionalInt("attempt").map { Int($0) }
        self.worker = try fields.optionalString("worker")
        self.node = try fields.optionalString("node")
        self.schedule = try fields.optionalString("schedule")
        self.startedBy = try fields.optionalString("startedBy")
        self.cancelledBy = try fields.optionalString("cancelledBy")
    }

    private static let stateWords = "a job state (\(JobState.allCases.map(\.rawValue).joined(separator: ", ")))"

    /// Reads a job back from history; nil when the value is not a job this version understands.
    public init?(json: JSONValue) {
        guard let record = try? JobRecord(decoding: json) else { return nil }
        self = record
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
    /// The `progress` event writes the same fields by hand (`WireEncoder+Progress`): change both.
    func write(into object: inout JSONObject) {
        object["completed"] = .int(completed)
        object["total"] = .int(total)
        object["fraction"] = .number(fraction)
        object["message"] = message.map(JSONValue.string) ?? .null
        object["rate"] = rate.map(JSONValue.number) ?? .null
        object["eta"] = eta.map(JSONValue.number) ?? .null
    }

    /// Reads progress back from an object holding the fields `write(into:)` adds: a job's `progress`
    /// (history, events) or a `progress` event itself. Rate and ETA come back too, so a job read from
    /// the journal or the archive is the same object it was in memory; they may be absent (history
    /// written before they were always written). `fraction` must be a number, but is not read: it is
    /// computed from `completed` and `total`, and written again from them.
    public init(decoding value: JSONValue, at path: String = "progress") throws(EngineError) {
        let fields = try JSONFields(value, at: path)
        let completed = try fields.int("completed")
        let total = try fields.int("total")
        _ = try fields.required("fraction", "a number") { $0.doubleValue }
        self.init(
            completed: completed, total: total, message: try fields.optionalString("message"),
            rate: try fields.optionalDouble("rate"), eta: try fields.optionalDouble("eta"))
    }
}
