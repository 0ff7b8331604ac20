import Foundation
import HeraldEngine

/// `herald cancel ID`: sends a `cancel` command and reports the answer.
enum CancelCommand {
    static func run(_ argv: [String]) -> Int32 {
        let session: StreamSession
        let job: String
        do {
            let arguments = try Arguments(argv, valued: ["token", "ca"], flags: ["help"])
            if arguments.has("help") {
                print(Help.cancel)
                return 0
            }
            guard let id = arguments.positionals.first else { throw Arguments.UsageError(description: "cancel needs a job ID") }
            guard arguments.positionals.count <= 2 else {
                throw Arguments.UsageError(description: "unexpected argument \(arguments.positionals[2])")
            }
            job = id
            let caFile = arguments.last("ca")
            session = try StreamSession(
                url: try StreamSession.url(from: Array(arguments.positionals.dropFirst()), caFile: caFile),
                token: arguments.last("token") ?? ProcessInfo.processInfo.environment["HERALD_TOKEN"], caFile: caFile)
        } catch {
            FileHandle.standardError.write(Data("herald cancel: \(error)\n".utf8))
            return 2
        }
        let requestId = "cli-\(UUID().uuidString)"
        var code: Int32 = 2
        var sent = false
        _ = session.run(
            reconnect: false,
            status: { status in
                if status != "live" { FileHandle.standardError.write(Data("herald cancel: \(status)\n".utf8)) }
            }
        ) { value, _ in
            if !sent {
                sent = true
                session.client?.send(JSONWriter.string(["type": "cancel", "job": .string(job), "requestId": .string(requestId)]))
            }
            guard value["requestId"]?.stringValue == requestId else { return .keepGoing }
            if value["type"]?.stringValue == "accepted" {
                Output.line("cancel requested for \(job)")
                code = 0
            } else {
                FileHandle.standardError.write(
                    Data("herald cancel: \(value["code"]?.stringValue ?? "error"): \(value["message"]?.stringValue ?? "")\n".utf8))
            }
            return .stop
        }
        if let fatal = session.fatal { FileHandle.standardError.write(Data("herald cancel: \(fatal)\n".utf8)) }
        return code
    }
}
