/// Turns one inbound text message into a `Command`, or an error that names what is wrong.
/// Pure and total: any bytes in, a value out, never a crash (it is fuzzed).
public enum CommandDecoder {
    /// A refused command: the error to send, and the request id when one could be read.
    public struct Refusal: Error, Equatable {
        public let error: EngineError
        public let requestId: String?
    }

    public static let maxDepth = 16
    public static let defaultPageLimit = 100
    /// Schedule names are at most 64 bytes (`^[a-z][a-z0-9_-]{0,63}$`, docs/schedules.md).
    public static let maxScheduleNameBytes = 64

    public static func decode(_ bytes: [UInt8]) -> Result<Command, Refusal> {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, maxDepth: maxDepth) } catch {
            return .failure(Refusal(error: EngineError(.badJSON, "not valid JSON: \(error)"), requestId: nil))
        }
        return decode(json: value)
    }

    /// The same, for a document already parsed (the REST API parses a body once and adds its `type`).
    public static func decode(json value: JSONValue) -> Result<Command, Refusal> {
        guard let object = value.objectValue else {
            return .failure(Refusal(error: EngineError(.badRequest, "a command is a JSON object"), requestId: nil))
        }
        // A request id over the documented 128 bytes is refused, and not echoed back.
        let requestId = object["requestId"]?.stringValue
        if let id = requestId, id.isEmpty || id.utf8.count > 128 {
            return .failure(Refusal(error: .badRequest(field: "requestId", "must be 1 to 128 bytes"), requestId: nil))
        }
        do {
            return .success(try decode(object, requestId: requestId))
        } catch {
            return .failure(Refusal(error: error, requestId: requestId))
        }
    }

    private static func decode(_ object: JSONObject, requestId: String?) throws(EngineError) -> Command {
        if let raw = object["requestId"], raw.stringValue == nil, raw != .null {
            throw .badRequest(field: "requestId", "must be a string")
        }
        guard let type = object["type"] else { throw .badRequest(field: "type", "required") }
        guard let typeName = type.stringValue else { throw .badRequest(field: "type", "must be a string") }
        switch typeName {
        case "start":
            guard let kind = object["kind"] else { throw .badRequest(field: "kind", "required") }
            guard let kindName = kind.stringValue else { throw .badRequest(field: "kind", "must be a string") }
            var params = JSONObject()
            if let raw = object["params"], raw != .null {
                guard let value = raw.objectValue else { throw .badRequest(field: "params", "must be an object") }
                params = value
            }
            var after: [String] = []
            if let raw = object["after"], raw != .null {
                guard let items = raw.arrayValue else { throw .badRequest(field: "after", "must be an array of job ids") }
                for item in items {
                    guard let id = item.stringValue, JobID.isWellFormed(id) else {
                        throw .badRequest(field: "after", "must be an array of job ids")
                    }
                    after.append(id)
                }
                guard after.count <= 64 else { throw .badRequest(field: "after", "at most 64 jobs") }
            }
            return .start(StartRequest(kind: kindName, params: params, after: after, requestId: requestId))
        case "cancel":
            return .cancel(job: try jobID(object), requestId: requestId)
        case "resume":
            guard let epoch = object["epoch"]?.stringValue, epoch.utf8.count <= 64 else {
                throw .badRequest(field: "epoch", "required, a string")
            }
            guard let since = object["since"]?.intValue, since >= 0 else {
                throw .badRequest(field: "since", "required, an integer of 0 or more")
            }
            return .resume(epoch: epoch, since: since)
        case "page":
            let job = try jobID(object)
            let offset = try integer(object, "offset", default: 0, in: 0...Int64(Int32.max))
            let limit = try integer(object, "limit", default: Int64(defaultPageLimit), in: 1...10_000)
            return .page(job: job, offset: Int(offset), limit: Int(limit), requestId: requestId)
        case "ping":
            return .ping
        case "auth":
            guard let token = object["token"]?.stringValue, !token.isEmpty, token.utf8.count <= 1024 else {
                throw .badRequest(field: "token", "required, a string")
            }
            return .auth(token: token, requestId: requestId)
        case "schedules":
            return .schedules(requestId: requestId)
        case "schedule":
            return .schedule(name: try scheduleName(object), action: try scheduleAction(object), requestId: requestId)
        case "hello":
            return .hello(try WorkerHello.decode(object))
        default:
            if let report = try WorkerReport.decode(type: typeName, object) { return .worker(report) }
            throw EngineError(
                .unknownType,
                "unknown command type \"\(String(typeName.prefix(64)))\"; known: start, cancel, resume, page, ping, auth, schedules, schedule (and for workers: \(WorkerReport.typeNames.joined(separator: ", ")))"
            )
        }
    }

    private static func jobID(_ object: JSONObject) throws(EngineError) -> String {
        guard let job = object["job"]?.stringValue, JobID.isWellFormed(job) else {
            throw .badRequest(field: "job", "required, a job id")
        }
        return job
    }

    /// Any name of the right length: one the jobs file does not declare is the engine's `not_found`,
    /// which names the schedules there are.
    private static func scheduleName(_ object: JSONObject) throws(EngineError) -> String {
        guard let raw = object["name"] else { throw .badRequest(field: "name", "required, a schedule's name") }
        guard let name = raw.stringValue, (1...maxScheduleNameBytes).contains(name.utf8.count) else {
            throw .badRequest(field: "name", "must be a schedule's name, a string of 1 to \(maxScheduleNameBytes) bytes")
        }
        return name
    }

    private static func scheduleAction(_ object: JSONObject) throws(EngineError) -> ScheduleAction {
        let actions = ScheduleAction.allCases.map(\.rawValue).joined(separator: ", ")
        guard let raw = object["action"] else { throw .badRequest(field: "action", "required, one of \(actions)") }
        guard let text = raw.stringValue, let action = ScheduleAction(rawValue: text) else {
            throw .badRequest(field: "action", "must be one of \(actions)")
        }
        return action
    }

    private static func integer(_ object: JSONObject, _ field: String, default value: Int64, in range: ClosedRange<Int64>)
        throws(EngineError) -> Int64
    {
        guard let raw = object[field], raw != .null else { return value }
        guard let number = raw.intValue, range.contains(number) else {
            throw .badRequest(field: field, "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
