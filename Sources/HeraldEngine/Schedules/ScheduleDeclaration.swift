import Foundation

/// One entry of the jobs file's `"schedules"`: a job (kind and params) started on a schedule.
/// A plain value, immutable after the file is read; any thread.
///
/// Format (docs/schedules.md): `{"kind": K, "params": {…}, "cron": "30 2 * * *" | "every": "10m",
/// "timezone": "Europe/Berlin", "overlap": "skip"|"queue"|"replace", "catchUp": "none"|"one"|"all",
/// "catchUpLimit": N, "jitter": S, "paused": false, "notify": […]}` (`notify`: read by `JobsFile`
/// into `WebhookRules`, docs/webhooks.md).
public struct ScheduleDeclaration: Sendable, Equatable {
    public let name: String
    public let kind: JobKind
    /// The params checked against the kind's declaration, defaults filled in.
    public let params: JSONObject
    public let schedule: Schedule
    /// The zone's name as written (UTC when not given).
    public let timeZoneName: String
    public var overlap = OverlapPolicy.skip
    public var catchUp = CatchUpPolicy.one
    /// How many missed occurrences `catchUp: "all"` fires at most (the latest ones).
    public var catchUpLimit = ScheduleDeclaration.defaultCatchUpLimit
    /// Each occurrence starts up to this many seconds late, at random, so that many schedules
    /// due at one minute do not all start at once.
    public var jitter = 0.0
    public var paused = false

    public static let defaultCatchUpLimit = 10
    static let keys: Set<String> = [
        "kind", "params", "cron", "every", "timezone", "overlap", "catchUp", "catchUpLimit", "jitter", "paused", "notify",
    ]

    /// Reads one declaration; `kinds` are the file's kinds, whose params a schedule's params must
    /// satisfy. The problem says what is wrong; the file and the schedule's name are added by the caller.
    init(name: String, declaration: JSONValue, kinds: [CommandKind]) throws(JobsFileError.Problem) {
        guard ParamSchema.matches(name, JobsFile.namePattern) else { throw .init("a schedule's name must match \(JobsFile.namePattern)") }
        guard let object = declaration.objectValue else { throw .init("must be an object") }
        if let unknown = object.keys.first(where: { !Self.keys.contains($0) }) { throw .init("unknown key \"\(unknown)\"") }
        self.name = name

        guard let kindName = object["kind"]?.stringValue else { throw .init("\"kind\" must be a string naming a kind of this file") }
        guard let kind = kinds.first(where: { $0.name.rawValue == kindName }) else {
            let declared = kinds.map(\.name.rawValue).joined(separator: ", ")
            throw .init("\"kind\" \"\(kindName)\" is not a kind of this file (\(declared.isEmpty ? "it declares none" : declared))")
        }
        self.kind = kind.name
        var given = JSONObject()
        if let value = object["params"] {
            guard let params = value.objectValue else { throw .init("\"params\" must be an object") }
            given = params
        }
        do { params = try kind.validate(given) } catch {
            throw .init("\"params\" refused by kind \"\(kindName)\": \(error.message)")
        }

        let rule: ScheduleRule
        switch (object["cron"], object["every"]) {
        case (let cron?, nil):
            guard let text = cron.stringValue else { throw .init("\"cron\" must be a string") }
            do { rule = .cron(try CronExpression(text)) } catch { throw .init("\"cron\": \(error)") }
        case (nil, let every?):
            guard let text = every.stringValue else { throw .init("\"every\" must be a string") }
            do { rule = .every(try EveryInterval(text)) } catch { throw .init("\"every\": \(error)") }
        case (nil, nil): throw .init("needs \"cron\" or \"every\"")
        case (.some, .some): throw .init("has both \"cron\" and \"every\"; give one")
        }
        var zone = Schedule.utc
        timeZoneName = try Self.string(object, "timezone") ?? "UTC"
        if object["timezone"] != nil {
            if case .every = rule { throw .init("\"timezone\" is for \"cron\"; an \"every\" interval does not depend on it") }
            do { zone = try Schedule.timeZone(named: timeZoneName) } catch {
                throw .init("\"timezone\" \"\(timeZoneName)\" is \(error.reason)")
            }
        }
        schedule = Schedule(rule: rule, timeZone: zone)

        if let value = try Self.string(object, "overlap") {
            guard let policy = OverlapPolicy(rawValue: value) else { throw .init("\"overlap\" must be \"skip\", \"queue\" or \"replace\"") }
            overlap = policy
        }
        if let value = try Self.string(object, "catchUp") {
            guard let policy = CatchUpPolicy(rawValue: value) else { throw .init("\"catchUp\" must be \"none\", \"one\" or \"all\"") }
            catchUp = policy
        }
        if let value = object["catchUpLimit"] {
            guard let limit = value.intValue, limit >= 1, limit <= 1000 else {
                throw .init("\"catchUpLimit\" must be a whole number from 1 to 1000")
            }
            guard catchUp == .all else { throw .init("\"catchUpLimit\" is for \"catchUp\": \"all\"") }
            catchUpLimit = Int(limit)
        }
        if let value = object["jitter"] {
            guard let seconds = value.doubleValue, seconds.isFinite, seconds >= 0, seconds <= 3600 else {
                throw .init("\"jitter\" must be a number of seconds from 0 to 3600")
            }
            jitter = seconds
        }
        if let value = object["paused"] {
            guard let flag = value.boolValue else { throw .init("\"paused\" must be true or false") }
            paused = flag
        }
    }

    private static func string(_ object: JSONObject, _ key: String) throws(JobsFileError.Problem) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.stringValue else { throw .init("\"\(key)\" must be a string") }
        return text
    }
}
