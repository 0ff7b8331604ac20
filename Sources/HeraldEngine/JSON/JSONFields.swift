/// The fields of one JSON object, read by a decoder that refuses what it cannot use: every refusal is
/// a bad request naming the field with where it sits (`job.progress.rate`, `lines[2].stream`), so an
/// error says which value of a large message is wrong. A plain value; pure.
///
/// The one rule for all readers: a required field must be there with its type; an optional field may
/// be absent or `null` (both read as nil); a field present with another type is refused. Keys a
/// reader does not ask for are ignored.
struct JSONFields {
    let object: JSONObject
    /// Where the object sits in the message; empty for the message itself.
    let path: String

    init(_ value: JSONValue, at path: String) throws(EngineError) {
        guard let object = value.objectValue else {
            throw .badRequest(field: path.isEmpty ? "message" : path, "must be a JSON object")
        }
        self.object = object
        self.path = path
    }

    /// The full name of `key` (or of `key[3]`) for an error.
    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// `key`, converted by `convert`, which answers nil for a value of another type; `what` says in
    /// words what was expected ("a string").
    func required<T>(_ key: String, _ what: String, _ convert: (JSONValue) -> T?) throws(EngineError) -> T {
        guard let value = object[key] else { throw .badRequest(field: name(key), "required, \(what)") }
        guard let converted = convert(value) else { throw .badRequest(field: name(key), "must be \(what)") }
        return converted
    }

    /// `key` converted, or nil when it is absent or `null`.
    func optional<T>(_ key: String, _ what: String, _ convert: (JSONValue) -> T?) throws(EngineError) -> T? {
        guard let value = object[key], value != .null else { return nil }
        guard let converted = convert(value) else { throw .badRequest(field: name(key), "must be \(what) or null") }
        return converted
    }

    func string(_ key: String) throws(EngineError) -> String { try required(key, "a string") { $0.stringValue } }
    func int(_ key: String) throws(EngineError) -> Int64 { try required(key, "an integer") { $0.intValue } }
    func bool(_ key: String) throws(EngineError) -> Bool { try required(key, "true or false") { $0.boolValue } }
    func object(_ key: String) throws(EngineError) -> JSONObject { try required(key, "an object") { $0.objectValue } }
    func array(_ key: String) throws(EngineError) -> [JSONValue] { try required(key, "an array") { $0.arrayValue } }
    func optionalString(_ key: String) throws(EngineError) -> String? { try optional(key, "a string") { $0.stringValue } }
    func optionalInt(_ key: String) throws(EngineError) -> Int64? { try optional(key, "an integer") { $0.intValue } }
    func optionalDouble(_ key: String) throws(EngineError) -> Double? { try optional(key, "a number") { $0.doubleValue } }
    func optionalObject(_ key: String) throws(EngineError) -> JSONObject? { try optional(key, "an object") { $0.objectValue } }

    /// A job id (`JobID.isWellFormed`): ids name log files, so nothing else is taken.
    func jobID(_ key: String) throws(EngineError) -> JobID {
        try required(key, "a job id") { $0.stringValue.flatMap { JobID.isWellFormed($0) ? JobID($0) : nil } }
    }

    /// The array `key`, each element read by `decode` with its own name (`key[index]`).
    func list<T>(_ key: String, _ decode: (JSONValue, String) throws(EngineError) -> T) throws(EngineError) -> [T] {
        let items = try array(key)
        var decoded: [T] = []
        decoded.reserveCapacity(items.count)
        for (index, item) in items.enumerated() { decoded.append(try decode(item, name("\(key)[\(index)]"))) }
        return decoded
    }
}
