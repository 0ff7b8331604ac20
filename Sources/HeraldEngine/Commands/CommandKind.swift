import Foundation

/// A job kind declared in a jobs file: the program to run and the params it takes. A plain value,
/// immutable after the file is read; any thread.
public struct CommandKind: Sendable, Equatable {
    public enum WhenBusy: String, Sendable {
        /// Start waits in `queued` until a slot frees.
        case queue
        /// Start is refused as `busy`, and every dashboard disables Start, like `search`.
        case refuse
    }

    /// Where the progress protocol is read: stdout (protocol lines and log lines mixed), or only
    /// file descriptor 3, for programs whose stdout cannot be trusted.
    public enum ProgressSource: String, Sendable {
        case stdout, fd3
    }

    public let name: JobKind
    public var title: String
    /// argv with `{param}` placeholders; nil for a kind only remote workers run.
    public var command: [String]?
    /// Declared params, in the file's order.
    public var params: [(name: String, schema: ParamSchema)]
    public var concurrency = 1
    public var whenBusy = WhenBusy.queue
    /// Seconds; nil: no limit.
    public var timeout: Double?
    /// Seconds between SIGTERM and SIGKILL when cancelling or timing out.
    public var grace = 10.0
    public var retries = 0
    /// Seconds before the first retry; doubled for each further one, at most 10 minutes.
    public var retryDelay = 5.0
    public var cwd: String?
    public var environment: [String: String] = [:]
    public var progressFrom = ProgressSource.stdout

    public init(name: JobKind, title: String, command: [String]?, params: [(name: String, schema: ParamSchema)] = []) {
        self.name = name
        self.title = title
        self.command = command
        self.params = params
    }

    public static func == (lhs: CommandKind, rhs: CommandKind) -> Bool {
        lhs.name == rhs.name && lhs.title == rhs.title && lhs.command == rhs.command
            && lhs.params.map(\.name) == rhs.params.map(\.name) && lhs.params.map(\.schema) == rhs.params.map(\.schema)
            && lhs.concurrency == rhs.concurrency && lhs.whenBusy == rhs.whenBusy && lhs.timeout == rhs.timeout && lhs.grace == rhs.grace
            && lhs.retries == rhs.retries && lhs.retryDelay == rhs.retryDelay && lhs.cwd == rhs.cwd && lhs.environment == rhs.environment
            && lhs.progressFrom == rhs.progressFrom
    }

    /// Checks and normalises a start's params: unknown ones refused, defaults filled in, each value
    /// checked against its declaration. Every error names the param.
    public func validate(_ given: JSONObject) throws(EngineError) -> JSONObject {
        let declared = Set(params.map(\.name))
        if let unknown = given.keys.first(where: { !declared.contains($0) }) {
            throw .badRequest(
                field: unknown, "unknown param; \(name) takes \(params.isEmpty ? "none" : params.map(\.name).joined(separator: ", "))")
        }
        var resolved = JSONObject()
        for (param, schema) in params {
            if let value = try schema.resolve(given[param], name: param) { resolved[param] = value }
        }
        return resolved
    }

    /// The argv to run with validated params: each `{param}` replaced inside its element (no shell:
    /// a value is never split or interpreted), a true boolean with a `flag` adding that element.
    public func argv(for params: JSONObject) -> [String] {
        var argv: [String] = []
        for element in command ?? [] {
            argv.append(Self.substitute(element, params))
        }
        for (param, schema) in self.params where schema.flag != nil && params[param]?.boolValue == true {
            argv.append(schema.flag!)
        }
        return argv
    }

    /// Replaces `{name}` with the param's text; an absent optional param becomes the empty string.
    static func substitute(_ element: String, _ params: JSONObject) -> String {
        var out = ""
        var rest = Substring(element)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            out += params[name].map(Self.text) ?? ""
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// The placeholders an argv element names.
    static func placeholders(in element: String) -> [String] {
        var names: [String] = []
        var rest = Substring(element)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        default: return String(decoding: JSONWriter.encode(value), as: UTF8.self)
        }
    }

    /// What the snapshot says of this kind: title, params and limits.
    public var json: JSONObject {
        var declared = JSONObject()
        for (param, schema) in params { declared[param] = schema.json }
        return [
            "title": .string(title), "params": .object(declared), "maxConcurrent": .int(Int64(concurrency)),
            "refuseWhenBusy": .bool(whenBusy == .refuse), "command": .bool(command != nil),
        ]
    }
}
