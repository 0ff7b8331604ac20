/// Serialises `JSONValue` to compact UTF-8 JSON. Hand-written because every event is encoded once on
/// the hot path of fan-out, and Foundation's encoder would cost more than the rest of the event.
public enum JSONWriter {
    public static func encode(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: encode(value), as: UTF8.self)
    }

    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): out.append(contentsOf: Array((b ? "true" : "false").utf8))
        case .int(let i): out.append(contentsOf: Array(String(i).utf8))
        case .double(let d): writeDouble(d, into: &out)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (index, entry) in object.entries.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(entry.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(entry.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A double is written so that it parses back as the same double: Swift's shortest round-trip
    /// form, which always has a `.` or an exponent (`3.0`, `0.1`, `1e+16`), so `.double(3)` does not
    /// come back as `.int(3)`. Every `JSONValue` but a non-finite double thus survives a write and a
    /// parse unchanged, which is what lets a node rebuild an event from another node's bytes and
    /// encode it again to the same bytes (`WireDecoder`). For a typed number that reads better
    /// without `.0` (progress, limits), `JSONValue.number` makes an `.int` of an integral value.
    private static func writeDouble(_ d: Double, into out: inout [UInt8]) {
        // JSON has no NaN or infinity: such a value is written as null (and reads back as null).
        guard d.isFinite else { out.append(contentsOf: Array("null".utf8)); return }
        out.append(contentsOf: Array(String(d).utf8))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
