import Foundation
import HeraldEngine

/// Human-readable numbers for the terminal.
enum Format {
    static func bytes(_ value: Double) -> String {
        // Only a misbehaving server sends a negative or infinite count; it must not crash the CLI.
        guard value.isFinite, value >= 0 else { return "—" }
        let units = ["B", "KB", "MB", "GB", "TB"]
        var scaled = value
        var index = 0
        while scaled >= 1000, index < units.count - 1 {
            scaled /= 1000
            index += 1
        }
        return index == 0 ? "\(Int(scaled)) B" : String(format: "%.1f %@", scaled, units[index])
    }

    static func duration(_ seconds: Double) -> String {
        // Beyond about 30 years an ETA says nothing (and Int(seconds) could overflow).
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else { return "—" }
        if seconds < 60 { return String(format: "%.1fs", seconds) }
        if seconds < 3600 { return String(format: "%dm%02ds", Int(seconds) / 60, Int(seconds) % 60) }
        return String(format: "%dh%02dm", Int(seconds) / 3600, (Int(seconds) % 3600) / 60)
    }

    /// Search counts bytes; other kinds count items.
    static func rate(_ value: Double?, kind: String) -> String {
        guard let value, value.isFinite else { return "" }
        return kind == "search" ? "\(bytes(value))/s" : String(format: "%.0f/s", value)
    }

    /// A one-line summary of a job's params: `"needle" in src`, `count=10000`.
    static func params(_ job: JSONObject) -> String {
        guard let params = job["params"]?.objectValue else { return "" }
        if let query = params["query"]?.stringValue {
            var text = "\"\(query.prefix(30))\""
            if params["caseSensitive"]?.boolValue == true { text += " (Aa)" }
            if let path = params["path"]?.stringValue { text += " in \(path)" }
            return text
        }
        return params.entries.filter { $0.key != "background" }.map { "\($0.key)=\(JSONWriter.string($0.value))" }.joined(separator: " ")
    }

    static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((min(1, max(0, fraction)) * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }

    /// One line for a job: kind, params, bar, percent, rate, ETA, state (and outcome when finished).
    static func jobLine(_ job: JSONObject, width: Int = 100) -> String {
        let kind = job["kind"]?.stringValue ?? "?"
        let state = job["state"]?.stringValue ?? "?"
        let progress = job["progress"]?.objectValue ?? [:]
        let fraction = progress["fraction"]?.doubleValue ?? 0
        let id = job["id"]?.stringValue ?? ""
        var line =
            "\(id)  \(kind.padding(toLength: 6, withPad: " ", startingAt: 0)) \(params(job).padding(toLength: 22, withPad: " ", startingAt: 0)) "
        switch state {
        case "succeeded":
            line += "✓ succeeded"
            if let summary = job["summary"]?.objectValue {
                line += "  " + summary.entries.map { "\($0.key)=\(JSONWriter.string($0.value))" }.joined(separator: " ")
            }
        case "failed", "cancelled", "interrupted":
            line += "✗ \(state)"
            if let error = job["error"]?.stringValue { line += ": \(error)" }
        default:
            line += bar(fraction, width: 24) + String(format: " %5.1f%%", fraction * 100)
            line += "  " + rate(progress["rate"]?.doubleValue, kind: kind)
            if let eta = progress["eta"]?.doubleValue { line += "  ETA " + duration(eta) }
            line += "  \(state)"
            if let message = progress["message"]?.stringValue { line += " (\(message))" }
        }
        return String(line.prefix(width))
    }
}
