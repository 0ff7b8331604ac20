import Foundation

/// A JSON value of a token's header or claims, or of a JWKS document, as Foundation's JSONDecoder
/// reads it: numbers that are whole and fit 64 bits are integers, others doubles; `true` is never a
/// number. A duplicated member name keeps its last value (what RFC 7515 section 4 allows).
indirect enum JWTJSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JWTJSONValue])
    case object([String: JWTJSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JWTJSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JWTJSONValue].self))
        }
    }

    /// The JSON object `bytes` holds, or nil when they are not one JSON object.
    static func object(from bytes: [UInt8]) -> [String: JWTJSONValue]? {
        guard case .object(let members)? = try? JSONDecoder().decode(JWTJSONValue.self, from: Data(bytes)) else { return nil }
        return members
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A number of seconds (an integer or not), as JSON's NumericDate (RFC 7519 section 2).
    var secondsValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .number(let value): return value
        default: return nil
        }
    }
}
