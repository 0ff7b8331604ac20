import Foundation
import HeraldEngine

/// `herald jobs check FILE`: reads a jobs file as `herald serve --jobs FILE` would, without serving.
/// Exit 0 with a line per kind, schedule and webhook when it is usable; 2 with the one line `serve` would stop with.
enum JobsCommand {
    static func run(_ argv: [String]) -> Int32 {
        guard argv.count == 2, argv[0] == "check" else {
            if argv.first == "--help" || argv.first == "-h" {
                print(Help.jobs)
                return 0
            }
            FileHandle.standardError.write(Data("herald: usage: herald jobs check FILE\n".utf8))
            return 2
        }
        do {
            let contents = try JobsFile.loadContents(path: argv[1])
            let kinds = contents.kinds
            let schedules =
                contents.schedules.isEmpty ? "" : ", \(contents.schedules.count) schedule\(contents.schedules.count == 1 ? "" : "s")"
            let webhooks = contents.notify.webhooks
            let told = webhooks.isEmpty ? "" : ", \(webhooks.count) webhook\(webhooks.count == 1 ? "" : "s")"
            print("\(argv[1]): \(kinds.count) kind\(kinds.count == 1 ? "" : "s")\(schedules)\(told), all usable")
            for kind in kinds {
                let params = kind.params.map(\.name).joined(separator: ", ")
                let runs = kind.command.map { "runs \($0[0])" } ?? "runs on workers only"
                print("  \(kind.name): \(kind.title); params: \(params.isEmpty ? "none" : params); \(runs)")
            }
            let now = Int64(Date().timeIntervalSince1970.rounded(.down))
            for declared in contents.schedules {
                let zone = declared.schedule.rule.isCron ? " (\(declared.timeZoneName))" : ""
                let next = declared.schedule.next(after: now).map {
                    "next \(SchedulesCommand.localTime($0, in: declared.schedule.timeZone))"
                }
                let state = declared.paused ? "paused" : next ?? "never fires again"
                print("  schedule \(declared.name): \(declared.kind) \(declared.schedule.rule)\(zone); \(state)")
            }
            for webhook in webhooks {
                print("  webhook \(WebhookStatus.shown(webhook.webhook)): signed with the secret in \(webhook.secretFile)")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
            return 2
        }
    }
}
