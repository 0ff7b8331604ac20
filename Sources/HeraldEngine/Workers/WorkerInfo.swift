/// A connected worker as viewers and operators see it: the `workers` event, the snapshot's
/// `workers`, `GET /api/workers`. A value.
public struct WorkerInfo: Sendable, Hashable {
    public let name: String
    public let kinds: [String]
    public let slots: Int
    /// Jobs it runs now.
    public let busy: Int
    /// It said `drain`: it finishes what it runs and takes nothing new.
    public let draining: Bool

    public init(name: String, kinds: [String], slots: Int, busy: Int, draining: Bool) {
        self.name = name
        self.kinds = kinds
        self.slots = slots
        self.busy = busy
        self.draining = draining
    }

    public var json: JSONValue {
        [
            "name": .string(name), "kinds": .array(kinds.map(JSONValue.string)), "slots": .int(Int64(slots)),
            "busy": .int(Int64(busy)), "draining": .bool(draining),
        ]
    }

    /// The inverse of `json`; refuses, naming the field, anything else.
    public init(decoding value: JSONValue, at path: String = "worker") throws(EngineError) {
        let fields = try JSONFields(value, at: path)
        let kinds = try fields.list("kinds") { (item, name) throws(EngineError) -> String in
            guard let kind = item.stringValue else { throw .badRequest(field: name, "must be a string") }
            return kind
        }
        self.init(
            name: try fields.string("name"), kinds: kinds, slots: Int(try fields.int("slots")), busy: Int(try fields.int("busy")),
            draining: try fields.bool("draining"))
    }
}
