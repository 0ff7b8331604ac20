/// Reads job params for `validate`. Every error names its field, so a client can point at the input
/// that is wrong. Thread: any (pure functions).
public enum JobParams {
    /// Refuses keys a kind does not know: a misspelt `caseSensitve` would otherwise be ignored silently.
    public static func refuseUnknown(_ params: JSONObject, allowed: Set<String>) throws(EngineError) {
        if let unknown = params.keys.first(where: { !allowed.contains($0) }) {
            let known = allowed.sorted().joined(separator: ", ")
            throw .badRequest(field: unknown, "unknown parameter (known: \(known.isEmpty ? "none" : known))")
        }
    }

    public static func bool(_ params: JSONObject, _ field: String, default value: Bool) throws(EngineError) -> Bool {
        guard let raw = params[field], raw != .null else { return value }
        guard let flag = raw.boolValue else { throw .badRequest(field: field, "must be true or false") }
        return flag
    }

    /// An integer in `range`; `10000.0` counts as an integer because JavaScript may send it that way.
    public static func integer(
        _ params: JSONObject, _ field: String, default value: Int, in range: ClosedRange<Int>
    ) throws(EngineError) -> Int {
        guard let raw = params[field], raw != .null else { return value }
        guard let number = raw.intValue else { throw .badRequest(field: field, "must be an integer") }
        guard number >= Int64(range.lowerBound), number <= Int64(range.upperBound) else {
            throw .badRequest(field: field, "must be from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// Any JSON number; the caller checks the range, which differs per field (open or closed ends).
    public static func number(_ params: JSONObject, _ field: String, default value: Double) throws(EngineError) -> Double {
        guard let raw = params[field], raw != .null else { return value }
        guard let number = raw.doubleValue, number.isFinite else { throw .badRequest(field: field, "must be a number") }
        return number
    }
}
