/// A client's copy of the server's state, built from the stream: a snapshot, then events in order.
/// Used by `herald watch` and `herald start --wait`; a plain value, one reader.
public struct StreamMirror: Sendable {
    public private(set) var epoch: String?
    public private(set) var seq: Int64 = 0
    /// Job objects by id, as last seen (progress merged in).
    public private(set) var jobs: [String: JSONObject] = [:]
    public private(set) var order: [String] = []
    public private(set) var newsRevision: Int64 = 0

    public init() {}

    /// What applying one message did.
    public enum Change: Equatable {
        case snapshot
        case job(String)
        case progress(String)
        case results(String, count: Int)
        case news(revision: Int64, added: Int)
        /// A reply or a message this version does not know: nothing changed.
        case none
        /// An event out of order: the caller should resume or reconnect.
        case gap(expected: Int64, got: Int64)
    }

    public mutating func apply(_ message: JSONValue) -> Change {
        guard let object = message.objectValue, let type = object["type"]?.stringValue else { return .none }
        if type == "snapshot" {
            epoch = object["epoch"]?.stringValue
            seq = object["seq"]?.intValue ?? 0
            jobs = [:]
            order = []
            for job in object["jobs"]?.arrayValue ?? [] { store(job) }
            newsRevision = object["news"]?["revision"]?.intValue ?? 0
            return .snapshot
        }
        guard let eventSeq = object["seq"]?.intValue else { return .none }
        if eventSeq <= seq { return .none }
        guard eventSeq == seq + 1 else { return .gap(expected: seq + 1, got: eventSeq) }
        seq = eventSeq
        switch type {
        case "job":
            guard let job = object["job"], let id = store(job) else { return .none }
            return .job(id)
        case "progress":
            guard let id = object["job"]?.stringValue, var job = jobs[id] else { return .none }
            var progress = JSONObject()
            for key in ["completed", "total", "fraction", "message", "rate", "eta"] { progress[key] = object[key] }
            job["progress"] = .object(progress)
            jobs[id] = job
            return .progress(id)
        case "results":
            guard let id = object["job"]?.stringValue else { return .none }
            return .results(id, count: object["items"]?.arrayValue?.count ?? 0)
        case "news":
            newsRevision = object["revision"]?.intValue ?? newsRevision
            return .news(revision: newsRevision, added: object["items"]?.arrayValue?.count ?? 0)
        default:
            return .none
        }
    }

    @discardableResult
    private mutating func store(_ job: JSONValue) -> String? {
        guard let object = job.objectValue, let id = object["id"]?.stringValue else { return nil }
        if jobs[id] == nil { order.append(id) }
        jobs[id] = object
        return id
    }
}
