import Foundation
import HeraldEngine
import HeraldLWS

/// `herald work --server URL --jobs FILE …`: runs jobs of the kinds in this machine's jobs file for
/// a server (docs/workers.md). Parses its options, then hands over to `WorkerAgent`.
enum WorkCommand {
    static let valued: Set<String> = ["server", "jobs", "token", "name", "slots", "grace", "ca"]

    static func run(_ argv: [String]) -> Int32 {
        let agent: WorkerAgent
        do {
            let arguments = try Arguments(argv, valued: valued, flags: ["help"])
            if arguments.has("help") {
                print(Help.work)
                return 0
            }
            guard arguments.positionals.isEmpty else {
                throw Arguments.UsageError(description: "unexpected argument \(arguments.positionals[0])")
            }
            guard let server = arguments.last("server") else {
                throw Arguments.UsageError(description: "work needs --server URL (the server to work for, e.g. http://127.0.0.1:8080)")
            }
            guard let jobsPath = arguments.last("jobs") ?? ProcessInfo.processInfo.environment["HERALD_JOBS"] else {
                throw Arguments.UsageError(description: "work needs --jobs FILE (the kinds this machine runs; docs/jobs.md)")
            }
            let caFile = arguments.last("ca")
            let url = try StreamSession.url(from: [server], caFile: caFile)
            let environment = ProcessInfo.processInfo.environment
            let token = arguments.last("token") ?? environment["HERALD_WORKER_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            let name = arguments.last("name") ?? ProcessInfo.processInfo.hostName
            guard !name.isEmpty, name.utf8.count <= 64 else { throw Arguments.UsageError(description: "--name must be 1 to 64 characters") }
            let slots = try arguments.integer("slots", in: 1...WorkerHello.maxSlots) ?? 1
            let grace = try arguments.number("grace", in: 0...86_400) ?? 30
            let kinds: [CommandKind]
            do { kinds = try JobsFile.load(path: jobsPath) } catch {
                FileHandle.standardError.write(Data("herald work: \(error)\n".utf8))
                return 2
            }
            let runnable = kinds.filter { $0.command != nil }
            guard !runnable.isEmpty else {
                throw Arguments.UsageError(
                    description: "\(jobsPath) declares no kind with a command: this worker would have nothing to run")
            }
            agent = try WorkerAgent(url: url, caFile: caFile, token: token, name: name, slots: slots, grace: grace, kinds: runnable)
        } catch {
            FileHandle.standardError.write(Data("herald work: \(error)\nRun `herald work --help` for the options.\n".utf8))
            return 2
        }
        signal(SIGPIPE, SIG_IGN)
        let signals = agent.installInterruptHandler()
        defer { _ = signals }
        return agent.run()
    }
}
