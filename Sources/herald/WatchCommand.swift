import Foundation
import HeraldEngine

/// `herald watch`: live bars in a terminal, or one line per event into a pipe.
enum WatchCommand {
    static func run(_ argv: [String]) -> Int32 {
        let session: StreamSession
        let once: Bool
        do {
            let arguments = try Arguments(argv, valued: ["ca", "token"], flags: ["help", "once"])
            if arguments.has("help") {
                print(Help.watch)
                return 0
            }
            guard arguments.positionals.count <= 1 else { throw Arguments.UsageError(description: "watch takes one URL at most") }
            let caFile = arguments.last("ca")
            session = try StreamSession(
                url: try StreamSession.url(from: arguments.positionals, caFile: caFile),
                token: arguments.last("token") ?? ProcessInfo.processInfo.environment["HERALD_TOKEN"], caFile: caFile)
            once = arguments.has("once")
        } catch {
            FileHandle.standardError.write(Data("herald watch: \(error)\n".utf8))
            return 2
        }
        let signals = session.installInterruptHandler()
        defer { _ = signals }
        if isatty(STDOUT_FILENO) == 1 {
            TerminalBoard(session: session).run(once: once)
        } else {
            runPlain(session, once: once)
        }
        if let fatal = session.fatal {
            FileHandle.standardError.write(Data("herald watch: \(fatal)\n".utf8))
            return 1
        }
        return 0
    }

    /// One line per event, flushed at once so a pipe sees it live.
    private static func runPlain(_ session: StreamSession, once: Bool) {
        _ = session.run(status: { FileHandle.standardError.write(Data("watch: \($0)\n".utf8)) }) { value, change in
            let mirror = session.mirror
            switch change {
            case .snapshot:
                emit("snapshot epoch=\(mirror.epoch ?? "?") seq=\(mirror.seq) jobs=\(mirror.order.count)")
                for id in mirror.order { if let job = mirror.jobs[id] { emit("job \(Format.jobLine(job, width: 200))") } }
                if once { return .stop }
            case .job(let id):
                if let job = mirror.jobs[id] { emit("job \(Format.jobLine(job, width: 200))") }
            case .progress(let id):
                let fraction = value["fraction"]?.doubleValue ?? 0
                let completed = value["completed"]?.intValue ?? 0
                let total = value["total"]?.intValue ?? 0
                let message = value["message"]?.stringValue.map { " \($0)" } ?? ""
                emit(String(format: "progress %@ %.1f%% %lld/%lld%@", id, fraction * 100, completed, total, message))
            case .results(let id, let count):
                emit("results \(id) +\(count)")
            case .news(let revision, let added):
                emit("news revision=\(revision) +\(added)")
            case .none, .gap:
                break
            }
            return .keepGoing
        }
    }

    private static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
