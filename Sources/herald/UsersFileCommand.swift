import HeraldAccess

/// The shape `herald users` and `herald keys` share: `GROUP SUBCOMMAND [NAME] [--flags]`, `--help`
/// anywhere, a usage error (exit 2) for an unknown subcommand or flag, and each subcommand's own code
/// for the rest (`UsersFileAccess.Exit`).
struct UsersFileCommand {
    typealias Handler = (Arguments) throws(UsersFileAccess.Exit) -> Void

    /// `users` or `keys`: how an unknown subcommand is named in the error.
    let group: String
    let help: String
    let usageText: String
    /// The subcommands in the order the errors list them, each with its valued flags and its code.
    let subcommands: [(name: String, valued: Set<String>, run: Handler)]

    func run(_ argv: [String]) -> Int32 {
        if argv.first == "--help" || argv.first == "-h" {
            print(help)
            return 0
        }
        guard let subcommand = subcommands.first(where: { $0.name == argv.first }) else {
            let known = subcommands.map(\.name).joined(separator: ", ")
            return usage(
                argv.first.map { "unknown \(group) command \"\($0)\"; the commands are \(known)" }
                    ?? "missing command; the commands are \(known)")
        }
        let arguments: Arguments
        do {
            arguments = try Arguments(Array(argv.dropFirst()), valued: subcommand.valued, flags: ["help"])
        } catch {
            return usage("\(error)")
        }
        if arguments.has("help") {
            print(help)
            return 0
        }
        do throws(UsersFileAccess.Exit) {
            try subcommand.run(arguments)
            return 0
        } catch {
            return error.code
        }
    }

    private func usage(_ problem: String) -> Int32 {
        UsersFileAccess.note("\(problem)\n\(usageText)")
        return 2
    }
}
