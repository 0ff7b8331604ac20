import HeraldEngine
import HeraldRedis

/// What one node asks of another through the asked node's control stream (`ClusterKeys.control`):
/// cancel a job it runs, or read a page of a job it holds and push the answer to `reply`. A value.
enum ClusterControl: Sendable, Equatable {
    /// `by`: who asked (already allowed by the asking node), recorded as the job's `cancelledBy`.
    case cancel(job: String, by: String)
    case page(job: String, offset: Int, limit: Int, reply: String)

    /// The entry's fields, for XADD.
    var fields: [String] {
        switch self {
        case .cancel(let job, let by): return ["t", "cancel", "j", job, "b", by]
        case .page(let job, let offset, let limit, let reply):
            return ["t", "page", "j", job, "o", String(offset), "l", String(limit), "r", reply]
        }
    }

    /// How long a request stays on a control stream: it is read within a block (a second) by a node
    /// that is alive, and a node silent for longer than its lease (at least 2 s) is asked nothing.
    static let keptMilliseconds = 60_000

    /// Adds the request to `node`'s control stream (`ControlScript`: older requests than
    /// `keptMilliseconds` by Redis's clock go). Thread: whichever owns `connection`.
    func post(to node: String, keys: ClusterKeys, on connection: RedisConnection) throws(RedisError) -> RedisReply {
        try connection.evaluate(
            ControlScript(keys: .init(control: keys.control(node)), args: .init(keptMilliseconds: Self.keptMilliseconds, fields: fields)))
    }

    /// Reads an entry's fields (name, value, …); nil for anything else (it is skipped and logged).
    init?(fields: [RedisReply]) {
        var map: [String: String] = [:]
        for index in stride(from: 0, to: fields.count - 1, by: 2) {
            if let name = fields[index].string, let value = fields[index + 1].string { map[name] = value }
        }
        guard let job = map["j"] else { return nil }
        switch map["t"] {
        case "cancel": self = .cancel(job: job, by: map["b"] ?? "anonymous")
        case "page":
            guard let offset = map["o"].flatMap({ Int($0) }), let limit = map["l"].flatMap({ Int($0) }), let reply = map["r"] else {
                return nil
            }
            self = .page(job: job, offset: offset, limit: limit, reply: reply)
        default: return nil
        }
    }
}
