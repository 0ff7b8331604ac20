import Foundation

/// What one line of a job's output means under the progress protocol (docs/jobs.md). Pure.
enum ProgressLine: Equatable {
    /// `{"progress": 0.42, "message": "…"}`: a fraction from 0 to 1.
    case fraction(Double, message: String?)
    /// `{"completed": 420, "total": 1000, "message": "…"}`.
    case counts(completed: Int64, total: Int64, message: String?)
    /// `{"result": {…}}`: the job's summary when it succeeds.
    case result(JSONObject)
    /// `{"items": [{…}, …]}`: a `results` event.
    case items([JSONValue])
    /// Anything else: a log line, which may still carry a percentage (`45%|████▌ | 45/100`,
    /// rsync's ` 1,234,567  45%  10.00MB/s`): the first `NN%` or `NN.N%` on it.
    case log(percent: Double?)

    /// The largest `result` object a program may report.
    static let maxResultBytes = 64 * 1024

    static func parse(_ line: String, protocolAllowed: Bool = true) -> ProgressLine {
        if protocolAllowed, let parsed = protocolMessage(line) { return parsed }
        // Most log lines hold no percent sign: skip the scan for them.
        guard holdsPercentSign(line) else { return .log(percent: nil) }
        return .log(percent: percentage(in: line))
    }

    /// Whether `line` has a `%`: memchr over its bytes (a flood's lines are all looked at).
    private static func holdsPercentSign(_ line: String) -> Bool {
        let found = line.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.baseAddress.map { memchr($0, Int32(UInt8(ascii: "%")), bytes.count) != nil } ?? false
        }
        return found ?? line.utf8.contains(UInt8(ascii: "%"))
    }

    /// A JSON object line with one of the protocol's keys; nil otherwise.
    private static func protocolMessage(_ line: String) -> ProgressLine? {
        let bytes = line.utf8
        guard let start = bytes.firstIndex(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }),
            bytes[start] == UInt8(ascii: "{"), let value = try? JSONParser.parse(Array(bytes[start...]), maxDepth: 16),
            let object = value.objectValue
        else { return nil }
        let message = object["message"]?.stringValue
        if let fraction = object["progress"]?.doubleValue, fraction.isFinite {
            return .fraction(min(1, max(0, fraction)), message: message)
        }
        if let completed = object["completed"]?.intValue, let total = object["total"]?.intValue, completed >= 0, total >= 0 {
            return .counts(completed: completed, total: total, message: message)
        }
        if let result = object["result"]?.objectValue, JSONWriter.encode(.object(result)).count <= maxResultBytes {
            return .result(result)
        }
        if let items = object["items"]?.arrayValue { return .items(items) }
        return nil
    }

    /// The first `NN%` or `NN.N%` (at most 100) on the line.
    static func percentage(in line: String) -> Double? {
        let bytes = Array(line.utf8)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "%") else {
                index += 1
                continue
            }
            // Walk back over digits and at most one dot.
            var start = index
            var sawDot = false
            while start > 0 {
                let byte = bytes[start - 1]
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    start -= 1
                } else if byte == UInt8(ascii: "."), !sawDot, start < index {
                    sawDot = true
                    start -= 1
                } else {
                    break
                }
            }
            if start < index, bytes[start] != UInt8(ascii: "."), let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)),
                value <= 100
            {
                return value / 100
            }
            index += 1
        }
        return nil
    }
}
