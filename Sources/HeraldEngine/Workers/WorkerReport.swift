/// What an attached worker tells the server (docs/workers.md): a job's progress, output, result or
/// failure, or that it is alive or stopping. Every job message names the attempt it is about, which
/// is how a stale run is told apart from the current one (fencing). Decoding is pure and total.
public enum WorkerReport: Sendable, Equatable {
    case progress(job: JobID, attempt: Int, JobProgress)
    case log(job: JobID, attempt: Int, lines: [LogLine], skipped: Int)
    case results(job: JobID, attempt: Int, items: [JSONValue])
    case result(job: JobID, attempt: Int, summary: JSONObject)
    /// The run ended other than well: `cancelled` when it ended because the server said `cancel`.
    case fail(job: JobID, attempt: Int, error: String, exit: JSONObject?, cancelled: Bool)
    /// Nothing to report, but alive: renews the lease.
    case beat
    /// The worker is stopping: it takes no more jobs, and finishes (or cancels) the ones it runs.
    case drain

    /// The message types a worker sends, for errors and docs.
    public static let typeNames = ["hello", "progress", "log", "results", "result", "fail", "beat", "drain"]
    public static let maxLinesPerMessage = 1000

    /// The job and attempt a job message is about; nil for `beat` and `drain`.
    public var target: (job: JobID, attempt: Int)? {
        switch self {
        case .progress(let job, let attempt, _), .log(let job, let attempt, _, _), .results(let job, let attempt, _),
            .result(let job, let attempt, _), .fail(let job, let attempt, _, _, _):
            return (job, attempt)
        case .beat, .drain:
            return nil
        }
    }

    public var typeName: String {
        switch self {
        case .progress: return "progress"
        case .log: return "log"
        case .results: return "results"
        case .result: return "result"
        case .fail: return "fail"
        case .beat: return "beat"
        case .drain: return "drain"
        }
    }

    /// The message as a worker sends it.
    public var json: [UInt8] {
        var object: JSONObject = ["type": .string(typeName)]
        if let (job, attempt) = target {
            object["job"] = .string(job.rawValue)
            object["attempt"] = .int(Int64(attempt))
        }
        switch self {
        case .progress(_, _, let progress):
            object["completed"] = .int(progress.completed)
            object["total"] = .int(progress.total)
            if let message = progress.message { object["message"] = .string(message) }
        case .log(_, _, let lines, let skipped):
            object["lines"] = .array(lines.map(\.json))
            if skipped > 0 { object["skipped"] = .int(Int64(skipped)) }
        case .results(_, _, let items):
            object["items"] = .array(items)
        case .result(_, _, let summary):
            object["summary"] = .object(summary)
        case .fail(_, _, let error, let exit, let cancelled):
            object["error"] = .string(error)
            if let exit { object["exit"] = .object(exit) }
            if cancelled { object["cancelled"] = true }
        case .beat, .drain:
            break
        }
        return JSONWriter.encode(.object(object))
    }

    /// Decodes a worker message of `type` (one of `typeNames` but `hello`). Nil for another type.
    public static func decode(type: String, _ object: JSONObject) throws(EngineError) -> WorkerReport? {
        switch type {
        case "beat": return .beat
        case "drain": return .drain
        case "progress":
            let (job, attempt) = try target(object)
            let completed = try count(object, "completed")
            let total = try count(object, "total")
            var message: String?
            if let raw = object["message"], raw != .null {
                guard let text = raw.stringValue, text.utf8.count <= 1024 else {
                    throw .badRequest(field: "message", "must be a string of at most 1024 bytes")
                }
                message = text
            }
            return .progress(job: job, attempt: attempt, JobProgress(completed: completed, total: total, message: message))
        case "log":
            let (job, attempt) = try target(object)
            guard let items = object["lines"]?.arrayValue, items.count <= maxLinesPerMessage else {
                throw .badRequest(field: "lines", "required, an array of at most \(maxLinesPerMessage) lines")
            }
            var lines: [LogLine] = []
            lines.reserveCapacity(items.count)
            for item in items {
                if let text = item.stringValue {
                    lines.append(LogLine(stream: .stdout, text: text))
                } else if let text = item["text"]?.stringValue {
                    let stream = item["stream"]?.stringValue.flatMap(LogLine.Stream.init(rawValue:)) ?? .stdout
                    lines.append(LogLine(stream: stream, text: text))
                } else {
                    throw .badRequest(field: "lines", "each line is a string or {\"stream\": \"stdout\"|\"stderr\", \"text\": …}")
                }
            }
            let skipped = try object["skipped"] == nil ? 0 : Int(count(object, "skipped"))
            return .log(job: job, attempt: attempt, lines: lines, skipped: skipped)
        case "results":
            let (job, attempt) = try target(object)
            guard let items = object["items"]?.arrayValue, items.count <= 10_000 else {
                throw .badRequest(field: "items", "required, an array of at most 10000 items")
            }
            return .results(job: job, attempt: attempt, items: items)
        case "result":
            let (job, attempt) = try target(object)
            var summary = JSONObject()
            if let raw = object["summary"], raw != .null {
                guard let value = raw.objectValue else { throw .badRequest(field: "summary", "must be an object") }
                summary = value
            }
            return .result(job: job, attempt: attempt, summary: summary)
        case "fail":
            let (job, attempt) = try target(object)
            let cancelled = object["cancelled"]?.boolValue ?? false
            let error = object["error"]?.stringValue.map { String($0.prefix(1024)) } ?? (cancelled ? "cancelled" : "failed")
            var exit: JSONObject?
            if let raw = object["exit"], raw != .null {
                guard let value = raw.objectValue else { throw .badRequest(field: "exit", "must be an object") }
                exit = value
            }
            return .fail(job: job, attempt: attempt, error: error, exit: exit, cancelled: cancelled)
        default:
            return nil
        }
    }

    private static func target(_ object: JSONObject) throws(EngineError) -> (JobID, Int) {
        guard let job = object["job"]?.stringValue, JobID.isWellFormed(job) else { throw .badRequest(field: "job", "required, a job id") }
        guard let attempt = object["attempt"]?.intValue, (1...1_000_000).contains(attempt) else {
            throw .badRequest(field: "attempt", "required, the attempt's number (1 or more)")
        }
        return (JobID(job), Int(attempt))
    }

    private static func count(_ object: JSONObject, _ field: String) throws(EngineError) -> Int64 {
        guard let value = object[field]?.intValue, value >= 0 else { throw .badRequest(field: field, "required, an integer of 0 or more") }
        return value
    }
}
