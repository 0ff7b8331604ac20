import Foundation
import HeraldEngine

/// `herald start KIND …`: sends a `start` command, prints the job id, and with `--wait` follows it.
enum StartCommand {
    static func run(_ argv: [String]) -> Int32 {
        let session: StreamSession
        let request: StartRequest
        let wait: Bool
        do {
            let arguments = try Arguments(argv, valued: ["param", "after", "token", "ca"], flags: ["help", "wait"])
            if arguments.has("help") {
                print(Help.start)
                return 0
            }
            guard let kind = arguments.positionals.first else {
                throw Arguments.UsageError(description: "start needs a KIND (search, sort or fetch)")
            }
            guard arguments.positionals.count <= 2 else {
                throw Arguments.UsageError(description: "unexpected argument \(arguments.positionals[2])")
            }
            var params = JSONObject()
            for pair in arguments.all("param") {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw Arguments.UsageError(description: "--param takes KEY=VALUE, not \"\(pair)\"")
                }
                params[String(pair[..<equals])] = typed(String(pair[pair.index(after: equals)...]))
            }
            request = StartRequest(kind: kind, params: params, after: arguments.all("after"), requestId: "cli-\(UUID().uuidString)")
            let caFile = arguments.last("ca")
            session = try StreamSession(
                url: try StreamSession.url(from: Array(arguments.positionals.dropFirst()), caFile: caFile),
                token: arguments.last("token") ?? ProcessInfo.processInfo.environment["HERALD_TOKEN"], caFile: caFile)
            wait = arguments.has("wait")
        } catch {
            FileHandle.standardError.write(Data("herald start: \(error)\n".utf8))
            return 2
        }
        let signals = session.installInterruptHandler()
        defer { _ = signals }
        return follow(session, request: request, wait: wait)
    }

    /// Numbers and booleans become JSON numbers and booleans; everything else stays a string.
    static func typed(_ text: String) -> JSONValue {
        if let integer = Int64(text) { return .int(integer) }
        if let number = Double(text), number.isFinite, text.contains(".") { return .double(number) }
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        return .string(text)
    }

    private static func follow(_ session: StreamSession, request: StartRequest, wait: Bool) -> Int32 {
        var jobID: String?
        var exitCode: Int32 = 2
        var sent = false
        let isTerminal = isatty(STDERR_FILENO) == 1
        var lastLine: ContinuousClock.Instant?  // monotonic: a clock step cannot stop the redraws
        let finished = session.run(
            reconnect: wait,
            status: { status in
                if status != "live" { FileHandle.standardError.write(Data("herald start: \(status)\n".utf8)) }
            }
        ) { value, change in
            if change == .snapshot || !sent, !sent, jobID == nil {
                // The stream is live: send the command once (it is idempotent by requestId anyway).
                sent = true
                session.client?.send(command(request))
            }
            if value["type"]?.stringValue == "error", value["requestId"]?.stringValue == request.requestId {
                FileHandle.standardError.write(
                    Data("herald start: \(value["code"]?.stringValue ?? "error"): \(value["message"]?.stringValue ?? "")\n".utf8))
                exitCode = 2
                return .stop
            }
            if value["type"]?.stringValue == "accepted", value["requestId"]?.stringValue == request.requestId, jobID == nil {
                jobID = value["job"]?.stringValue
                Output.line(jobID ?? "")
                if !wait {
                    exitCode = 0
                    return .stop
                }
            }
            guard let id = jobID, let job = session.mirror.jobs[id] else { return .keepGoing }
            let line = Format.jobLine(job, width: 120)
            if isTerminal,
                (lastLine.map { $0.duration(to: .now) > .milliseconds(100) } ?? true) || job["state"]?.stringValue.map(isFinal) == true
            {
                FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
                lastLine = ContinuousClock.now
            }
            guard let state = job["state"]?.stringValue, isFinal(state) else { return .keepGoing }
            if isTerminal {
                FileHandle.standardError.write(Data("\n".utf8))
            } else {
                FileHandle.standardError.write(Data("\(line)\n".utf8))
            }
            exitCode = state == "succeeded" ? 0 : (state == "failed" ? 1 : 3)
            return .stop
        }
        if let fatal = session.fatal { FileHandle.standardError.write(Data("herald start: \(fatal)\n".utf8)) }
        return finished ? exitCode : 2
    }

    private static func isFinal(_ state: String) -> Bool {
        ["succeeded", "failed", "cancelled", "interrupted"].contains(state)
    }

    private static func command(_ request: StartRequest) -> String {
        var object: JSONObject = ["type": "start", "kind": .string(request.kind), "params": .object(request.params)]
        if !request.after.isEmpty { object["after"] = .array(request.after.map(JSONValue.string)) }
        object["requestId"] = request.requestId.map(JSONValue.string) ?? .null
        return JSONWriter.string(.object(object))
    }
}
