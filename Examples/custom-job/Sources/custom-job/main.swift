import Foundation
import HeraldEngine
import HeraldLWS

/// `countdown`: counts `from` down to zero, a step every half second, and can be cancelled between steps.
struct CountdownRunner: JobRunner {
    let kind = JobKind("countdown")
    static let fromRange = 1...3600
    static let fromDefault = 10

    // What clients are told of the kind (the snapshot's `limits.kinds.countdown`): the dashboard
    // builds its start form from it, here a number field for `from` with its bounds and default.
    var catalogEntry: JSONObject? {
        var from = ParamSchema(type: .integer)
        from.defaultValue = .int(Int64(Self.fromDefault))
        from.minimum = Double(Self.fromRange.lowerBound)
        from.maximum = Double(Self.fromRange.upperBound)
        return ["title": "Countdown", "params": ["from": from.json]]
    }

    // Runs before the job exists: a bad `from` is refused with bad_request naming it.
    func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject {
        try JobParams.refuseUnknown(params, allowed: ["from"])
        return ["from": .int(Int64(try JobParams.integer(params, "from", default: Self.fromDefault, in: Self.fromRange)))]
    }

    // Runs on a worker thread; `params` are the validated ones.
    func run(_ context: JobContext) throws -> JSONObject {
        let from = context.params["from"]?.intValue ?? Int64(Self.fromDefault)
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
