import Foundation
import HeraldEngine

/// `herald schedules list [URL]` and `herald schedules pause|resume|run NAME [URL]`: a server's
/// schedules over its WebSocket, with the `schedules` and `schedule` commands (docs/protocol.md).
/// Exit 0 when done, 1 when the server refused (no such schedule, no token, a busy kind), 2 for bad
/// usage or no connection.
enum ScheduleControlCommand {
    /// The subcommands this type runs, in the order the help names them.
    static let subcommands = ["list"] + ScheduleAction.allCases.map(\.rawValue)

    static func run(_ subcommand: String, _ argv: [String]) -> Int32 {
        let prefix = "herald schedules \(subcommand)"
        let requestId = "cli-\(UUID().uuidString)"
        let session: StreamSession
        let command: JSONObject
        let action = ScheduleAction(rawValue: subcommand)
        do {
            let arguments = try Arguments(argv, valued: ["token", "ca"], flags: ["help"])
            if arguments.has("help") {
                print(Help.schedules)
                return 0
            }
            var rest = arguments.positionals
            if let action {
                guard let name = rest.first else { throw Arguments.UsageError(description: "\(subcommand) needs a schedule's NAME") }
                rest.removeFirst()
                command = ["type": "schedule", "name": .string(name), "action": .string(action.rawValue), "requestId": .string(requestId)]
            } else {
                command = ["type": "schedules", "requestId": .string(requestId)]
            }
            guard rest.count <= 1 else { throw Arguments.UsageError(description: "unexpected argument \(rest[1])") }
            let caFile = arguments.last("ca")
            session = try StreamSession(
                url: try StreamSession.url(from: rest, caFile: caFile),
                token: arguments.last("token") ?? ProcessInfo.processInfo.environment["HERALD_TOKEN"], caFile: caFile)
        } catch {
            let usage = error is Arguments.UsageError ? "\n\(SchedulesCommand.usageText)" : ""
            FileHandle.standardError.write(Data("\(prefix): \(error)\(usage)\n".utf8))
            return 2
        }
        var code: Int32 = 2
        var sent = false
        _ = session.run(
            reconnect: false,
            status: { status in
                if status != "live" { FileHandle.standardError.write(Data("\(prefix): \(status)\n".utf8)) }
            }
        ) { value, _ in
            // The server speaks first (its snapshot): the command goes once the connection is live.
            if !sent {
                sent = true
                session.client?.send(JSONWriter.string(.object(command)))
            }
            guard value["requestId"]?.stringValue == requestId else { return .keepGoing }
            code = report(value, action: action, prefix: prefix)
            return .stop
        }
        if let fatal = session.fatal { FileHandle.standardError.write(Data("\(prefix): \(fatal)\n".utf8)) }
        return code
    }

    /// Prints the server's reply: the table, the schedule's new standing, or the job a run started;
    /// or the refusal on stderr. Returns the exit code.
    private static func report(_ reply: JSONValue, action: ScheduleAction?, prefix: String) -> Int32 {
        func refused(_ message: String) -> Int32 {
            FileHandle.standardError.write(Data("\(prefix): \(ScheduleTable.clean(message))\n".utf8))
            return 1
        }
        let zone = TimeZone.current
        switch (reply["type"]?.stringValue, action) {
        case ("schedules", nil):
            guard let schedules = reply["schedules"]?.arrayValue else { return refused("the server's reply has no schedules") }
            if schedules.isEmpty {
                Output.line("no schedules: the server's jobs file declares none")
            } else {
                for line in ScheduleTable.lines(schedules, in: zone) { Output.line(line) }
            }
            return 0
        case ("schedule", let action?):
            guard let schedule = reply["schedule"], let name = schedule["name"]?.stringValue.map(ScheduleTable.clean) else {
                return refused("the server's reply has no schedule")
            }
            switch action {
            case .pause:
                Output.line("\(name): paused")
            case .resume:
                Output.line("\(name): resumed; next \(ScheduleTable.time(schedule["next"]?.intValue, in: zone))")
            case .run:
                guard let job = schedule["last"]?["job"]?.stringValue else { return refused("the server started no job") }
                Output.line(ScheduleTable.clean(job))
            }
            return 0
        case ("error", _):
            return refused("\(reply["code"]?.stringValue ?? "error"): \(reply["message"]?.stringValue ?? "")")
        default:
            return refused("unexpected reply \(reply["type"]?.stringValue ?? "without a type")")
        }
    }
}
