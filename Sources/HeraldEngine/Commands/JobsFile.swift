import Foundation

/// The jobs file (`herald serve --jobs FILE`, `HERALD_JOBS`): the kinds a server (or a worker) runs
/// besides the built-in ones. Reading it checks everything a running server would trip over later,
/// so a bad file stops the server at start with one line, never half-way through a job.
///
/// Format (docs/jobs.md): `{"kinds": {"NAME": {"title": …, "command": [argv…], "params": {…},
/// "concurrency": 1, "whenBusy": "queue"|"refuse", "timeout": S, "grace": S, "retries": N,
/// "retryDelay": S, "cwd": DIR, "env": {…}, "progressFrom": "stdout"|"fd3"}}, "schedules": {"NAME":
/// {"kind": …, "params": {…}, "cron": …|"every": …, …}}, "notify": [{"on": […], "webhook": URL,
/// "secretFile": PATH}]}` (schedules: `ScheduleDeclaration`; `notify`, also on a kind or a schedule:
/// `NotifyEntry`, docs/webhooks.md).
public enum JobsFile {
    static let kindKeys: Set<String> = [
        "title", "command", "params", "concurrency", "whenBusy", "timeout", "grace", "retries", "retryDelay", "cwd", "env",
        "progressFrom", "notify",
    ]
    /// Kind names: what fits in a URL, a log line and a metric label without escaping.
    static let namePattern = "^[a-z][a-z0-9_-]{0,63}$"

    /// Reads and checks the file at `path`. `path` is how the error names the file; `searchPath` is
    /// where a bare `command[0]` is looked for (the server's PATH).
    public static func load(path: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) throws(JobsFileError)
        -> [CommandKind]
    {
        try loadContents(path: path, searchPath: searchPath).kinds
    }

    /// As `load`, with the file's schedules too.
    public static func loadContents(path: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"])
        throws(JobsFileError) -> JobsFileContents
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JobsFileError(
                file: path, kind: nil,
                problem:
                    "cannot be read (\(FileManager.default.fileExists(atPath: path) ? "permission denied or a folder" : "no such file"))")
        }
        return try parseContents(Array(data), file: path, searchPath: searchPath)
    }

    /// Checks a jobs file's bytes; `file` names it in errors.
    public static func parse(_ bytes: [UInt8], file: String, searchPath: String?) throws(JobsFileError) -> [CommandKind] {
        try parseContents(bytes, file: file, searchPath: searchPath).kinds
    }

    /// As `parse`, with the file's schedules too. A bad schedule makes the whole file unusable.
    public static func parseContents(_ bytes: [UInt8], file: String, searchPath: String?) throws(JobsFileError) -> JobsFileContents {
        let root: JSONValue
        do { root = try JSONParser.parse(bytes, maxDepth: 16) } catch {
            throw JobsFileError(file: file, kind: nil, problem: "not valid JSON: \(error)")
        }
        guard let object = root.objectValue else {
            throw JobsFileError(file: file, kind: nil, problem: "must be a JSON object with \"kinds\"")
        }
        if let unknown = object.keys.first(where: { $0 != "kinds" && $0 != "schedules" && $0 != "notify" }) {
            throw JobsFileError(
                file: file, kind: nil, problem: "unknown key \"\(unknown)\" (only \"kinds\", \"schedules\" and \"notify\")")
        }
        // A relative secretFile is read from the jobs file's folder.
        let folder = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) : "."
        var rules = WebhookRules()
        guard let kinds = object["kinds"]?.objectValue else {
            throw JobsFileError(file: file, kind: nil, problem: "\"kinds\" must be an object")
        }
        var result: [CommandKind] = []
        for (name, declaration) in kinds.entries {
            do {
                result.append(try kind(name, declaration, searchPath: searchPath))
                if let notify = declaration["notify"] { rules.byKind[name] = try NotifyEntry.list(notify, folder: folder) }
            } catch {
                throw JobsFileError(file: file, kind: name, problem: error.message)
            }
        }
        var schedules: [ScheduleDeclaration] = []
        if let declared = object["schedules"] {
            guard let declared = declared.objectValue else {
                throw JobsFileError(file: file, kind: nil, problem: "\"schedules\" must be an object")
            }
            for (name, declaration) in declared.entries {
                do {
                    schedules.append(try ScheduleDeclaration(name: name, declaration: declaration, kinds: result))
                    if let notify = declaration["notify"] { rules.bySchedule[name] = try NotifyEntry.list(notify, folder: folder) }
                } catch {
                    throw JobsFileError(file: file, kind: nil, schedule: name, problem: error.message)
                }
            }
        }
        if let notify = object["notify"] {
            do { rules.everyJob = try NotifyEntry.list(notify, folder: folder) } catch {
                throw JobsFileError(file: file, kind: nil, problem: error.message)
            }
        }
        if let conflict = rules.conflict { throw JobsFileError(file: file, kind: nil, problem: conflict) }
        return JobsFileContents(kinds: result, schedules: schedules, notify: rules)
    }

    private static func kind(_ name: String, _ declaration: JSONValue, searchPath: String?) throws(JobsFileError.Problem) -> CommandKind {
        guard ParamSchema.matches(name, namePattern) else { throw .init("a kind's name must match \(namePattern)") }
        guard !JobKind.builtIn.contains(JobKind(name)) else { throw .init("is a built-in kind's name") }
        guard let object = declaration.objectValue else { throw .init("must be an object") }
        if let unknown = object.keys.first(where: { !kindKeys.contains($0) }) { throw .init("unknown key \"\(unknown)\"") }

        var params: [(name: String, schema: ParamSchema)] = []
        if let declared = object["params"] {
            guard let declared = declared.objectValue else { throw .init("\"params\" must be an object") }
            for (param, schema) in declared.entries {
                do { params.append((param, try ParamSchema(declaration: schema))) } catch {
                    throw .init("param \"\(param)\": \(error.message)")
                }
            }
        }
        var command: [String]?
        if let argv = object["command"] {
            guard let elements = argv.arrayValue, !elements.isEmpty, elements.allSatisfy({ $0.stringValue != nil }) else {
                throw .init("\"command\" must be a non-empty array of strings")
            }
            let strings = elements.compactMap(\.stringValue)
            for element in strings {
                for placeholder in CommandKind.placeholders(in: element) where !params.contains(where: { $0.name == placeholder }) {
                    throw .init("placeholder {\(placeholder)} names no declared param")
                }
            }
            guard executable(strings[0], searchPath: searchPath) != nil else {
                throw .init("command[0] \"\(strings[0])\" is not an executable file (give an absolute path, or a name on PATH)")
            }
            command = strings
        }
        let title = try string(object, "title") ?? name
        var kind = CommandKind(name: JobKind(name), title: title, command: command, params: params)
        if let value = try number(object, "concurrency") {
            guard value >= 1, value <= 1000, value.rounded() == value else {
                throw .init("\"concurrency\" must be a whole number from 1 to 1000")
            }
            kind.concurrency = Int(value)
        }
        if let value = try string(object, "whenBusy") {
            guard let whenBusy = CommandKind.WhenBusy(rawValue: value) else { throw .init("\"whenBusy\" must be \"queue\" or \"refuse\"") }
            kind.whenBusy = whenBusy
        }
        if let value = try number(object, "timeout") {
            guard value > 0 else { throw .init("\"timeout\" must be more than 0 seconds") }
            kind.timeout = value
        }
        if let value = try number(object, "grace") {
            guard value >= 0, value <= 3600 else { throw .init("\"grace\" must be from 0 to 3600 seconds") }
            kind.grace = value
        }
        if let value = try number(object, "retries") {
            guard value >= 0, value <= 100, value.rounded() == value else {
                throw .init("\"retries\" must be a whole number from 0 to 100")
            }
            kind.retries = Int(value)
        }
        if let value = try number(object, "retryDelay") {
            guard value >= 0, value <= 600 else { throw .init("\"retryDelay\" must be from 0 to 600 seconds") }
            kind.retryDelay = value
        }
        if let value = try string(object, "cwd") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: value, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw .init("\"cwd\" \"\(value)\" is not a folder")
            }
            kind.cwd = value
        }
        if let value = object["env"] {
            guard let env = value.objectValue, env.entries.allSatisfy({ $0.value.stringValue != nil }) else {
                throw .init("\"env\" must be an object of strings")
            }
            for (key, text) in env.entries {
                guard !key.isEmpty, !key.contains("="), !key.contains("\0") else { throw .init("\"env\" has an invalid name \"\(key)\"") }
                kind.environment[key] = text.stringValue
            }
        }
        if let value = try string(object, "progressFrom") {
            guard let source = CommandKind.ProgressSource(rawValue: value) else {
                throw .init("\"progressFrom\" must be \"stdout\" or \"fd3\"")
            }
            kind.progressFrom = source
        }
        return kind
    }

    private static func string(_ object: JSONObject, _ key: String) throws(JobsFileError.Problem) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.stringValue else { throw .init("\"\(key)\" must be a string") }
        return text
    }

    private static func number(_ object: JSONObject, _ key: String) throws(JobsFileError.Problem) -> Double? {
        guard let value = object[key] else { return nil }
        guard let number = value.doubleValue, number.isFinite else { throw .init("\"\(key)\" must be a number") }
        return number
    }

    /// The executable `name` stands for: itself when it contains a slash, else the first match on
    /// `searchPath`; nil when there is no executable regular file. Thread: any.
    public static func executable(_ name: String, searchPath: String?) -> String? {
        func isExecutableFile(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && access(path, X_OK) == 0
        }
        if name.contains("/") { return isExecutableFile(name) ? name : nil }
        for folder in (searchPath ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }
}
