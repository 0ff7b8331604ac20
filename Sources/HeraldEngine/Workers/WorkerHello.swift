/// A worker's `hello` (docs/workers.md): who it is, which kinds it runs and how many at once.
/// Decoding is pure and total: any JSON object in, a value or an error naming the field out.
public struct WorkerHello: Sendable, Equatable {
    /// The worker protocol's version; a worker that speaks another is refused at `hello`.
    public static let protocolVersion: Int64 = 1
    public static let maxSlots = 256
    public static let maxKinds = 64

    public let name: String
    public let kinds: [String]
    public let slots: Int
    /// The worker token, when the worker sends it in its `hello` rather than in an `auth` first.
    public let token: String?
    /// Each kind's params as the worker's own jobs file declares them (`herald work` sends them), so
    /// the server can refuse a worker whose declaration differs; nil when the worker did not say.
    public let params: [String: JSONValue]?

    public init(name: String, kinds: [String], slots: Int, token: String? = nil, params: [String: JSONValue]? = nil) {
        self.name = name
        self.kinds = kinds
        self.slots = slots
        self.token = token
        self.params = params
    }

    /// The message as a worker sends it.
    public var json: [UInt8] {
        var object: JSONObject = [
            "type": "hello", "role": "worker", "name": .string(name), "kinds": .array(kinds.map(JSONValue.string)),
            "slots": .int(Int64(slots)), "version": .int(Self.protocolVersion),
        ]
        if let token { object["token"] = .string(token) }
        if let params {
            var declared = JSONObject()
            for key in params.keys.sorted() { declared[key] = params[key] }
            object["params"] = .object(declared)
        }
        return JSONWriter.encode(.object(object))
    }

    public static func decode(_ object: JSONObject) throws(EngineError) -> WorkerHello {
        guard object["role"]?.stringValue == "worker" else { throw .badRequest(field: "role", "must be \"worker\"") }
        guard let version = object["version"]?.intValue else { throw .badRequest(field: "version", "required, an integer") }
        guard version == protocolVersion else {
            throw .badRequest(field: "version", "worker protocol \(version) is not spoken here; this server speaks \(protocolVersion)")
        }
        guard let name = object["name"]?.stringValue, !name.isEmpty, name.utf8.count <= 64,
            name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { throw .badRequest(field: "name", "required, 1 to 64 printable characters") }
        guard let items = object["kinds"]?.arrayValue, !items.isEmpty, items.count <= maxKinds else {
            throw .badRequest(field: "kinds", "required, an array of 1 to \(maxKinds) kind names")
        }
        var kinds: [String] = []
        for item in items {
            guard let kind = item.stringValue, !kind.isEmpty, kind.utf8.count <= 64 else {
                throw .badRequest(field: "kinds", "must be an array of kind names")
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        var slots = 1
        if let raw = object["slots"], raw != .null {
            guard let value = raw.intValue, (1...Int64(maxSlots)).contains(value) else {
                throw .badRequest(field: "slots", "must be an integer from 1 to \(maxSlots)")
            }
            slots = Int(value)
        }
        var token: String?
        if let raw = object["token"], raw != .null {
            guard let text = raw.stringValue, !text.isEmpty, text.utf8.count <= 1024 else {
                throw .badRequest(field: "token", "must be a string")
            }
            token = text
        }
        var params: [String: JSONValue]?
        if let raw = object["params"], raw != .null {
            guard let declared = raw.objectValue else { throw .badRequest(field: "params", "must be an object of kind → params") }
            params = Dictionary(declared.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        }
        return WorkerHello(name: name, kinds: kinds, slots: slots, token: token, params: params)
    }
}
