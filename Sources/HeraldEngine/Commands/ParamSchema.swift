import Foundation

/// One declared param of a command kind (the jobs file's `params`): its type and the rules a value
/// must keep. Validation happens before anything runs; every refusal names the param.
/// A plain value; any thread.
public struct ParamSchema: Sendable, Equatable {
    public enum ValueType: String, Sendable, CaseIterable {
        case string, integer, number, boolean
    }

    public var type: ValueType
    public var required = false
    public var defaultValue: JSONValue?
    public var pattern: String?
    public var allowed: [JSONValue]?
    public var minimum: Double?
    public var maximum: Double?
    public var maxLength: Int?
    /// For a boolean: the argv element added when it is true.
    public var flag: String?

    public init(type: ValueType) { self.type = type }

    /// The keys a param declaration may have.
    static let keys: Set<String> = ["type", "required", "default", "pattern", "enum", "minimum", "maximum", "maxLength", "flag"]

    /// Reads a declaration from the jobs file; the error says what is wrong with it.
    init(declaration: JSONValue) throws(JobsFileError.Problem) {
        guard let object = declaration.objectValue else { throw .init("must be an object") }
        if let unknown = object.keys.first(where: { !Self.keys.contains($0) }) { throw .init("unknown key \"\(unknown)\"") }
        guard let name = object["type"]?.stringValue, let type = ValueType(rawValue: name) else {
            throw .init("\"type\" must be one of string, integer, number, boolean")
        }
        self.init(type: type)
        if let value = object["required"] {
            guard let bool = value.boolValue else { throw .init("\"required\" must be true or false") }
            required = bool
        }
        if let text = object["pattern"] {
            guard type == .string, let pattern = text.stringValue else { throw .init("\"pattern\" is for strings, as a string") }
            guard (try? NSRegularExpression(pattern: pattern)) != nil else { throw .init("\"pattern\" is not a valid regular expression") }
            self.pattern = pattern
        }
        if let values = object["enum"] {
            guard let array = values.arrayValue, !array.isEmpty else { throw .init("\"enum\" must be a non-empty array") }
            allowed = array
        }
        for key in ["minimum", "maximum"] {
            guard let value = object[key] else { continue }
            guard type == .integer || type == .number, let number = value.doubleValue else {
                throw .init("\"\(key)\" is for numbers, as a number")
            }
            if key == "minimum" { minimum = number } else { maximum = number }
        }
        if let value = object["maxLength"] {
            guard type == .string, let length = value.intValue, length >= 0 else {
                throw .init("\"maxLength\" is for strings, as a whole number")
            }
            maxLength = Int(length)
        }
        if let value = object["flag"] {
            guard type == .boolean, let flag = value.stringValue, !flag.isEmpty else {
                throw .init("\"flag\" is for booleans, as a string")
            }
            self.flag = flag
        }
        if let value = object["default"] {
            do { defaultValue = try check(value, name: "default") } catch { throw .init("\"default\": \(error.message)") }
        }
        if let allowed {
            for value in allowed {
                do { _ = try check(value, name: "enum") } catch { throw .init("\"enum\": \(error.message)") }
            }
        }
    }

    /// The value to run with: the given one checked, or the default; nil when absent and optional.
    public func resolve(_ value: JSONValue?, name: String) throws(EngineError) -> JSONValue? {
        guard let value, value != .null else {
            if let defaultValue { return defaultValue }
            if required { throw .badRequest(field: name, "required") }
            return nil
        }
        return try check(value, name: name)
    }

    /// Checks one value against the type and the rules; integers given as 3.0 become 3.
    func check(_ value: JSONValue, name: String) throws(EngineError) -> JSONValue {
        let checked: JSONValue
        switch type {
        case .string:
            guard let text = value.stringValue else { throw .badRequest(field: name, "must be a string") }
            if let maxLength, text.count > maxLength { throw .badRequest(field: name, "must be at most \(maxLength) characters") }
            if let pattern, !Self.matches(text, pattern) { throw .badRequest(field: name, "must match \(pattern)") }
            checked = value
        case .integer:
            guard let number = value.doubleValue, number.rounded() == number, abs(number) < 9.0e15 else {
                throw .badRequest(field: name, "must be an integer")
            }
            try checkRange(number, name: name)
            checked = .int(Int64(number))
        case .number:
            guard let number = value.doubleValue, number.isFinite else { throw .badRequest(field: name, "must be a number") }
            try checkRange(number, name: name)
            checked = value
        case .boolean:
            guard value.boolValue != nil else { throw .badRequest(field: name, "must be true or false") }
            checked = value
        }
        if let allowed, !allowed.contains(where: { Self.same($0, checked) }) {
            let listed = allowed.map { String(decoding: JSONWriter.encode($0), as: UTF8.self) }.joined(separator: ", ")
            throw .badRequest(field: name, "must be one of \(listed)")
        }
        return checked
    }

    private func checkRange(_ number: Double, name: String) throws(EngineError) {
        if let minimum, number < minimum { throw .badRequest(field: name, "must be at least \(Self.show(minimum))") }
        if let maximum, number > maximum { throw .badRequest(field: name, "must be at most \(Self.show(maximum))") }
    }

    private static func show(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// Equal values, numbers compared by value (so 3 and 3.0 are the same).
    private static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue, a.boolValue == nil, b.boolValue == nil { return x == y }
        return a == b
    }

    /// As in JSON Schema, a pattern is not anchored: a declaration writes `^…$` to match the whole value.
    static func matches(_ text: String, _ pattern: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return false }
        let range = NSRange(text.startIndex..., in: text)
        return expression.firstMatch(in: text, range: range) != nil
    }

    /// The declaration as clients see it in the snapshot (`limits.kinds[...].params`).
    public var json: JSONValue {
        var object: JSONObject = ["type": .string(type.rawValue)]
        if required { object["required"] = true }
        if let defaultValue { object["default"] = defaultValue }
        if let pattern { object["pattern"] = .string(pattern) }
        if let allowed { object["enum"] = .array(allowed) }
        if let minimum { object["minimum"] = .number(minimum) }
        if let maximum { object["maximum"] = .number(maximum) }
        if let maxLength { object["maxLength"] = .int(Int64(maxLength)) }
        if let flag { object["flag"] = .string(flag) }
        return .object(object)
    }
}
