/// Serialises `JSONValue` to compact UTF-8 JSON. Hand-written because every event is encoded once on
/// the hot path of fan-out, and Foundation's encoder would cost more than the rest of the event.
///
/// The scalar writers (`writeInt`, `writeDouble`, `writeNumber`, `writeString`) are the one way each
/// scalar is spelled; the hand-written event encoders (`WireEncoder+Progress`) call them too, so a
/// fast path cannot drift from the general one in how a string is escaped or a number is written.
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
        case .null: writeNull(into: &out)
        case .bool(let b): writeRaw(b ? "true" : "false", into: &out)
        case .int(let i): writeInt(i, into: &out)
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

    static func writeNull(into out: inout [UInt8]) {
        writeRaw("null", into: &out)
    }

    /// Decimal digits, made in a buffer on the stack and appended at once (no intermediate `String`):
    /// the same text as `String(i)`.
    static func writeInt(_ i: Int64, into out: inout [UInt8]) {
        if i < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = i.magnitude
        // 20 digits hold any UInt64, so any Int64's magnitude.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
        }
    }

    /// Appends fixed text (a key and its punctuation) from the binary's constant bytes.
    static func writeRaw(_ text: StaticString, into out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A double is written so that it parses back as the same double: Swift's shortest round-trip
    /// form, which always has a `.` or an exponent (`3.0`, `0.1`, `1e+16`), so `.double(3)` does not
    /// come back as `.int(3)`. Every `JSONValue` but a non-finite double thus survives a write and a
    /// parse unchanged, which is what lets a node rebuild an event from another node's bytes and
    /// encode it again to the same bytes (`WireDecoder`). For a typed number that reads better
    /// without `.0` (progress, limits), `JSONValue.number` makes an `.int` of an integral value.
    static func writeDouble(_ d: Double, into out: inout [UInt8]) {
        // JSON has no NaN or infinity: such a value is written as null (and reads back as null).
        guard d.isFinite else { return writeNull(into: &out) }
        out.append(contentsOf: d.description.utf8)
    }

    /// What `write(.number(d))` writes, without making the `JSONValue`: null when not finite, an
    /// integer when integral and below 1e15 in magnitude, the double otherwise.
    static func writeNumber(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else { return writeNull(into: &out) }
        if d.rounded() == d && abs(d) < 1e15 { return writeInt(Int64(d), into: &out) }
        writeDouble(d, into: &out)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// A quoted string. Runs of bytes that need no escape (nearly all of them) are copied at once.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var run = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F else { continue }
                if run < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index])) }
                run = index + 1
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                default: out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            if run < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...])) }
        }
        out.append(UInt8(ascii: "\""))
    }
}
