/// A JSON document as a plain value: what commands decode into and events encode from.
///
/// Numbers keep integers exact (`.int`) apart from other numbers (`.double`), so sequence numbers,
/// byte counts and microsecond timestamps survive a round trip.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// An object that keeps its keys in insertion order, so encoded output is stable and readable.
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    public private(set) var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    public init() {}

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            if values[key] == nil, newValue != nil { keys.append(key) }
            if newValue == nil, values[key] != nil { keys.removeAll { $0 == key } }
            values[key] = newValue
        }
    }

    public var count: Int { keys.count }
    public var entries: [(key: String, value: JSONValue)] { keys.map { ($0, values[$0]!) } }
}

extension JSONValue {
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }

    /// An integer, also from a double with no fractional part (JavaScript sends `10000.0` sometimes).
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// A typed number (a field whose reader takes `doubleValue`): an integer when it has no fraction
    /// and is exact as one (`"fraction":1`, `"progressEventsPerSecond":20`), null when not finite,
    /// a double otherwise. The reader gets the same double back either way.
    public static func number(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if value.rounded() == value && abs(value) < 1e15 { return .int(Int64(value)) }
        return .double(value)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
