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
}
