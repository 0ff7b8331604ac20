import Foundation
import HeraldEngine

/// `herald logs JOB [--follow]`: prints a job's kept log (stdout lines to stdout, stderr lines to
/// stderr), paged from the server; with `--follow`, goes on printing new lines until the job ends.
enum LogsCommand {
    /// Lines asked for per page, and how often a follower asks for more.
    static let pageSize = 1000
    static let followInterval = 0.3

    static func run(_ argv: [String]) -> Int32 {
        let session: StreamSession
        let job: String
        let follow: Bool
        do {
            let arguments = try Arguments(argv, valued: ["token", "ca"], flags: ["help", "follow"])
            if arguments.has("help") {
                print(Help.logs)
                return 0
            }
            guard let id = arguments.positionals.first else { throw Arguments.UsageError(description: "logs needs a job ID") }
            guard arguments.positionals.count <= 2 else {
                throw Arguments.UsageError(description: "unexpected argument \(arguments.positionals[2])")
            }
            job = id
            follow = arguments.has("follow")
            let caFile = arguments.last("ca")
            session = try StreamSession(
                url: try StreamSession.url(from: Array(arguments.positionals.dropFirst()), caFile: caFile),
                token: arguments.last("token") ?? ProcessInfo.processInfo.environment["HERALD_TOKEN"], caFile: caFile)
        } catch {
            FileHandle.standardError.write(Data("herald logs: \(error)\n".utf8))
            return 2
        }
        // Lines are numbered over the job's whole output (`first` + offset), so a follower is not
        // fooled when the server drops old lines past its 10,000.
        var printed = 0
        var asked: String?
        var lastAsk = ContinuousClock.now
        var code: Int32 = 0
        func ask(_ offset: Int) {
            let requestId = "cli-\(UUID().uuidString)"
            asked = requestId
            lastAsk = ContinuousClock.now
            session.client?.send(
                JSONWriter.string([
                    "type": "page", "job": .string(job), "offset": .int(Int64(offset)), "limit": .int(Int64(pageSize)),
                    "requestId": .string(requestId),
                ]))
        }
        var nextOffset = 0
        _ = session.run(
            reconnect: follow,
            status: { status in
                if status != "live" { FileHandle.standardError.write(Data("herald logs: \(status)\n".utf8)) }
            },
            tick: {
                // Following: ask for new lines now and then, also when no event arrives.
                // An answer lost with a dropped connection is asked for again after a while.
                let waited = lastAsk.duration(to: .now)
                if follow, session.client != nil,
                    asked == nil && waited >= .milliseconds(Int(followInterval * 1000)) || waited >= .seconds(5)
                {
                    ask(nextOffset)
                }
            }
        ) { value, change in
            if change == .snapshot { ask(nextOffset) }
            if value["type"]?.stringValue == "page", value["requestId"]?.stringValue == asked {
                asked = nil
                guard let lines = value["lines"]?.arrayValue else {
                    FileHandle.standardError.write(
                        Data("herald logs: job \(job) keeps no log (only jobs of kinds from a jobs file do)\n".utf8))
                    code = 2
                    return .stop
                }
                let first = Int(value["first"]?.intValue ?? 0)
                let offset = Int(value["offset"]?.intValue ?? 0)
                let total = Int(value["total"]?.intValue ?? 0)
                for (index, line) in lines.enumerated() where first + offset + index >= printed {
                    let text = (line["text"]?.stringValue ?? "") + "\n"
                    if line["stream"]?.stringValue == "stderr" {
                        FileHandle.standardError.write(Data(text.utf8))
                    } else {
                        FileHandle.standardOutput.write(Data(text.utf8))
                    }
                    printed = first + offset + index + 1
                }
                nextOffset = max(0, printed - first)
                if nextOffset < total { ask(nextOffset) }  // more kept lines to page through now
                let state = session.mirror.jobs[job]?["state"]?.stringValue
                if !follow || nextOffset >= total && state.map(isFinal) == true {
                    code = state.map { follow ? exitCode(for: $0) : 0 } ?? 0
                    return .stop
                }
                return .keepGoing
            }
            if value["type"]?.stringValue == "error", value["requestId"]?.stringValue == asked {
                FileHandle.standardError.write(
                    Data("herald logs: \(value["code"]?.stringValue ?? "error"): \(value["message"]?.stringValue ?? "")\n".utf8))
                code = 2
                return .stop
            }
            // Following: ask again at once when the job changes state (it may have ended).
            if follow, asked == nil, change == .job(job) { ask(nextOffset) }
            return .keepGoing
        }
        if let fatal = session.fatal {
            FileHandle.standardError.write(Data("herald logs: \(fatal)\n".utf8))
            return 2
        }
        return code
    }

    private static func isFinal(_ state: String) -> Bool {
        ["succeeded", "failed", "cancelled", "interrupted"].contains(state)
    }

    /// As `herald start --wait`: 0 succeeded, 1 failed, 3 cancelled or interrupted.
    private static func exitCode(for state: String) -> Int32 {
        state == "succeeded" ? 0 : (state == "failed" ? 1 : 3)
    }
}
