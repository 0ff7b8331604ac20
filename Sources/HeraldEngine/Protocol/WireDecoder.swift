/// Reads a numbered event back into its typed value: the inverse of `WireEncoder.encode(event:seq:ts:)`.
///
/// For nodes that share one ordered event stream: a node reads each event another node encoded,
/// rebuilds the `EngineEvent` (to keep its own view of every job for snapshots) and encodes it again
/// with the stream's `seq`, so viewers on every node get the same bytes. That holds because decoding
/// is exact: for every event `e`, decoding `encode(event: e, seq: s, ts: t)` gives back `(s, t, e)`,
/// and encoding that gives the same bytes (Tests/HeraldEngineTests/WireRoundTripTests.swift).
///
/// Pure and total: any bytes in, an event or an error naming the field out, never a crash (it is
/// fuzzed with the command decoder). Input the encoder would not write byte for byte (other key
/// order or spacing, `5.0` for `5`, keys this version does not know, a `fraction` that is not
/// `completed / total`) still decodes to the event it describes, which encodes in the canonical form.
public enum WireDecoder {
    /// Deep enough for any event: params, summaries and results come from messages and programs
    /// parsed at depth 16, and an event wraps them in at most three more levels. History reads at 64 too.
    public static let maxDepth = 64

    public static let eventTypes = ["job", "progress", "results", "news", "log", "workers"]

    public static func event(_ bytes: [UInt8]) throws(EngineError) -> (seq: Int64, ts: Int64, event: EngineEvent) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, maxDepth: maxDepth) } catch {
            throw EngineError(.badJSON, "not valid JSON: \(error)")
        }
        return try event(json: value)
    }

    /// The same, for a message already parsed.
    public static func event(json value: JSONValue) throws(EngineError) -> (seq: Int64, ts: Int64, event: EngineEvent) {
        guard value.objectValue != nil else { throw EngineError(.badRequest, "an event is a JSON object") }
        let fields = try JSONFields(value, at: "")
        let type = try fields.string("type")
        guard eventTypes.contains(type) else { throw unknown(type) }
        let seq = try fields.int("seq")
        let ts = try fields.int("ts")
        return (seq, ts, try event(type: type, fields))
    }

    private static func event(type: String, _ fields: JSONFields) throws(EngineError) -> EngineEvent {
        switch type {
        case "job":
            return .job(try JobRecord(decoding: fields.required("job", "a job object") { $0 }, at: "job"))
        case "progress":
            // The progress fields sit in the event itself, beside `job` (JobProgress.write(into:)).
            return .progress(job: try fields.jobID("job"), try JobProgress(decoding: .object(fields.object), at: ""))
        case "results":
            return .results(job: try fields.jobID("job"), items: try fields.array("items"))
        case "news":
            return .news(revision: try fields.int("revision"), items: try fields.list("items", NewsItem.init(decoding:at:)))
        case "log":
            let job = try fields.jobID("job")
            let lines = try fields.list("lines", LogLine.init(decoding:at:))
            // Written only when more than 0.
            let skipped = try fields.optional("skipped", "an integer of 0 or more") { $0.intValue.flatMap { $0 >= 0 ? Int($0) : nil } }
            let first = try fields.optional("first", "an integer of 0 or more") { $0.intValue.flatMap { $0 >= 0 ? Int($0) : nil } }
            return .log(job: job, lines: lines, skipped: skipped ?? 0, first: first ?? 0)
        case "workers":
            return .workers(try fields.list("workers", WorkerInfo.init(decoding:at:)))
        default:
            throw unknown(type)
        }
    }

    private static func unknown(_ type: String) -> EngineError {
        .badRequest(field: "type", "\"\(String(type.prefix(64)))\" is not an event type; known: \(eventTypes.joined(separator: ", "))")
    }
}
