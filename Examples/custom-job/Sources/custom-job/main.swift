import Foundation
import HeraldEngine
import HeraldLWS

/// `countdown`: counts `from` down to zero, a step every half second, and can be cancelled between steps.
struct CountdownRunner: JobRunner {
    let kind = JobKind("countdown")

    // Runs before the job exists: a bad `from` is refused with bad_request naming it.
    func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject {
        try JobParams.refuseUnknown(params, allowed: ["from"])
        return ["from": .int(Int64(try JobParams.integer(params, "from", default: 10, in: 1...3600)))]
    }

    // Runs on a worker thread; `params` are the validated ones.
    func run(_ context: JobContext) throws -> JSONObject {
        let from = context.params["from"]?.intValue ?? 10
        for left in stride(from: from, to: 0, by: -1) {
            context.progress.report(completed: from - left, total: from, message: "\(left) to go")
            try context.checkCancelled()
            Thread.sleep(forTimeInterval: 0.5)
        }
        context.progress.report(completed: from, total: from, message: "lift-off")
        return ["counted": .int(from)]
    }
}

// `custom-job [PORT]`: serves on 127.0.0.1 (port 0 picks a free one) until SIGINT or SIGTERM.
let app = HeraldApp(runners: [CountdownRunner()], port: CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 0)
do { try app.start() } catch {
    FileHandle.standardError.write(Data("custom-job: \(error)\n".utf8))
    exit(1)
}
// The first line is the URL, as `herald serve` prints it; unbuffered, so a pipe sees it at once.
FileHandle.standardOutput.write(Data("\(app.url!)\n".utf8))
app.runUntilSignal()
