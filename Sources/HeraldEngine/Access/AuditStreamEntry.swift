import HeraldAccess

/// One entry of a cluster's shared audit stream: the event and the node that recorded it. In Redis
/// its fields are `n` (the node's name) and `e` (the event's JSON, as a line of `audit.jsonl`); to a
/// client it is the event's JSON with `node` added. Thread: any (a value).
public struct AuditStreamEntry: Sendable, Equatable {
    public let id: AuditStreamID
    public let node: String
    public let event: AuditEvent

    public init(id: AuditStreamID, node: String, event: AuditEvent) {
        self.id = id
        self.node = node
        self.event = event
    }

    /// The field-value pairs an `XADD` appends for `event`, recorded by `node`.
    public static func fields(node: String, event: AuditEvent) -> [[UInt8]] {
        [Array("n".utf8), Array(node.utf8), Array("e".utf8), JSONWriter.encode(event.json)]
    }

    /// Reads an entry back from its id and its flat field-value list (as `XRANGE` answers it); nil
    /// for one it could not have made (a bad id, a field missing, an event that does not parse).
    public init?(id text: String, fields: [[UInt8]]) {
        guard let id = AuditStreamID(text: text), fields.count.isMultiple(of: 2) else { return nil }
        var node: String?
        var encoded: [UInt8]?
        for index in stride(from: 0, to: fields.count, by: 2) {
            switch fields[index] {
            case Array("n".utf8): node = String(validating: fields[index + 1], as: UTF8.self)
            case Array("e".utf8): encoded = fields[index + 1]
            default: continue
            }
        }
        guard let node, !node.isEmpty, let encoded, let value = try? JSONParser.parse(encoded, maxDepth: 2),
            let event = AuditEvent(json: value)
        else { return nil }
        self.init(id: id, node: node, event: event)
    }

    /// The event's JSON with `node`.
    public var json: JSONValue {
        guard case .object(var object) = event.json else { return event.json }
        object["node"] = .string(node)
        return .object(object)
    }
}
