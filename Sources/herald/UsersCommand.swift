import Foundation
import HeraldAccess
import HeraldCrypto

/// `herald users add NAME --role R`, `herald users remove NAME`, `herald users list`: the people of a
/// users file (`--users FILE` or `$HERALD_USERS`), their passwords stored as argon2id hashes only.
enum UsersCommand {
    static let usageText = """
        Usage: herald users add NAME --role ROLE [--users FILE]   (the password from the terminal, or stdin's first line)
               herald users remove NAME [--users FILE]
               herald users list [--users FILE]
        """

    static func run(_ argv: [String]) -> Int32 {
        UsersFileCommand(
            group: "users", help: Help.users, usageText: usageText,
            subcommands: [
                ("add", ["users", "role"], add),
                ("remove", ["users"], remove),
                ("list", ["users"], list),
            ]
        ).run(argv)
    }

    private static func add(_ arguments: Arguments) throws(UsersFileAccess.Exit) {
        let name = try UsersFileAccess.name(arguments, command: "add", usage: usageText)
        let role = try UsersFileAccess.role(arguments, usage: usageText)
        let access = try UsersFileAccess.locate(arguments, usage: usageText)
        // Refused before the password is asked for, so nobody types one for nothing.
        if try access.load(creating: true).isNameTaken(name) {
            throw UsersFileAccess.fail(1, "\(access.path) already has a user or key named \"\(name)\"; nothing was changed")
        }
        let password: String
        switch PasswordPrompt.read(for: name) {
        case .success(let given): password = given
        case .failure(let failure): throw UsersFileAccess.fail(1, failure.message)
        }
        let hash = Argon2id.hash(password: password)
        // Read again: the file may have changed while the password was typed.
        let created = try access.edit(creating: true) { (file, isNew) throws(UsersFileAccess.Exit) in
            do {
                try file.add(UsersFile.User(name: name, role: role, passwordHash: hash))
            } catch {
                throw UsersFileAccess.fail(1, "\(access.path): \(error); nothing was changed")
            }
            return isNew
        }
        UsersFileAccess.note(
            "\(created ? "created \(access.path) with" : "added") user \(name) (\(role.rawValue))\(created ? "" : " to \(access.path)")")
    }

    private static func remove(_ arguments: Arguments) throws(UsersFileAccess.Exit) {
        let name = try UsersFileAccess.name(arguments, command: "remove", usage: usageText)
        let access = try UsersFileAccess.locate(arguments, usage: usageText)
        try access.edit { (file, _) throws(UsersFileAccess.Exit) in
            guard file.removeUser(named: name) else {
                let known = file.users.map(\.name).joined(separator: ", ")
                throw UsersFileAccess.fail(1, "\(access.path) has no user named \"\(name)\" (its users: \(known.isEmpty ? "none" : known))")
            }
        }
        UsersFileAccess.note("removed user \(name) from \(access.path)")
    }

    private static func list(_ arguments: Arguments) throws(UsersFileAccess.Exit) {
        guard arguments.positionals.isEmpty else { throw UsersFileAccess.fail(2, "list takes no NAME\n\(usageText)") }
        let file = try UsersFileAccess.locate(arguments, usage: usageText).load()
        for line in UsersFileAccess.table([["NAME", "ROLE"]] + file.users.map { [$0.name, $0.role.rawValue] }) {
            print(line)
        }
    }
}
