import Foundation
import HeraldLWS
import HeraldServer

// `herald [serve] …`, `herald watch …`, `herald start …`, `herald cancel …`.
let arguments = Array(CommandLine.arguments.dropFirst())
let subcommand = arguments.first.flatMap { ["serve", "watch", "start", "cancel", "jobs", "logs", "work"].contains($0) ? $0 : nil }
let rest = subcommand == nil ? arguments : Array(arguments.dropFirst())

if arguments.first == "--version" || arguments.first == "version" {
    print("herald \(Version.herald) (libwebsockets \(LibWebSocketsVersion.string))")
    exit(0)
}
if arguments.first == "--help" || arguments.first == "-h" || arguments.first == "help" {
    print(Help.overview)
    exit(0)
}

let code: Int32
switch subcommand ?? "serve" {
case "watch": code = WatchCommand.run(rest)
case "start": code = StartCommand.run(rest)
case "cancel": code = CancelCommand.run(rest)
case "jobs": code = JobsCommand.run(rest)
case "logs": code = LogsCommand.run(rest)
case "work": code = WorkCommand.run(rest)
default: code = ServeCommand.run(rest)
}
exit(code)
