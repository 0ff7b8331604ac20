import Foundation
import HeraldLWS
import HeraldServer

// `herald [serve] …`, `herald watch …`, `herald start …`, `herald cancel …`.
let arguments = Array(CommandLine.arguments.dropFirst())
let subcommands = ["serve", "watch", "start", "cancel", "jobs", "logs", "work", "schedules", "users", "keys"]
let subcommand = arguments.first.flatMap { subcommands.contains($0) ? $0 : nil }
let rest = subcommand == nil ? arguments : Array(arguments.dropFirst())

if arguments.first == "--version" || arguments.first == "version" {
    print("herald \(Version.herald) (libwebsockets \(LibWebSocketsVersion.string))")
    exit(0)
}
if arguments.first == "--help" || arguments.first == "-h" || arguments.first == "help" {
    print(Help.overview)
    exit(0)
}

// Without a subcommand, `herald --port 9000` serves; a first word that is no subcommand is a typo,
// not a positional argument of `serve`.
if subcommand == nil, let word = arguments.first, !word.hasPrefix("-") {
    FileHandle.standardError.write(
        Data("herald: unknown command \"\(word)\"; the commands are \(subcommands.joined(separator: ", ")) (herald --help)\n".utf8))
    exit(2)
}

let code: Int32
switch subcommand ?? "serve" {
case "watch": code = WatchCommand.run(rest)
case "start": code = StartCommand.run(rest)
case "cancel": code = CancelCommand.run(rest)
case "share": code = ShareCommand.run(rest)
case "jobs": code = JobsCommand.run(rest)
case "logs": code = LogsCommand.run(rest)
case "work": code = WorkCommand.run(rest)
case "schedules": code = SchedulesCommand.run(rest)
case "users": code = UsersCommand.run(rest)
case "keys": code = KeysCommand.run(rest)
default: code = ServeCommand.run(rest)
}
exit(code)
