import Foundation
import HeraldAccess
import HeraldSupport

/// `herald keys add NAME --role R [--kinds a,b] [--expires 30d]`, `herald keys revoke NAME`,
/// `herald keys list`: the API keys of a users file. `add` prints the new key once, alone on stdout;
/// the file keeps only its SHA-256, so a lost key is revoked and replaced, never shown again.
enum KeysCommand {
    static let usageText = """
        Usage: herald keys add NAME --role ROLE [--kinds KIND,...] [--expires DURATION] [--users FILE]
               herald keys revoke NAME [--users FILE]
               herald keys list [--users FILE]
        """

    static func run(_ argv: [String]) -> Int32 {
        UsersFileCommand(
            group: "keys", help: Help.keys, usageText: usageText,
            subcommands: [
                ("add", ["users", "role", "kinds", "expires"], add),
                ("revoke", ["users"], revoke),
                ("list", ["users"], list),
            ]
        ).run(argv)
    }

    private static func add(_ arguments: Arguments) throws(UsersFileAccess.Exit) {
        let name = try UsersFileAccess.name(arguments, command: "add", usage: usageText)
        let role = try UsersFileAccess.role(arguments, usage: usageText)
        let kinds = try self.kinds(arguments)
        var lifetime: Int64?
        if let text = arguments.last("expires") {
            guard let seconds = KeyLifetime.seconds(parsing: text) else {
                throw UsersFileAccess.fail(
                    2, "--expires must be \(DurationText.expected), up to 3650d, not \"\(text)\"")
            }
            lifetime = seconds
        }
        let access = try UsersFileAccess.locate(arguments, usage: usageText)
        let now = Int64(Date().timeIntervalSince1970.rounded(.down))
        let key = APIKey.generate()
        let entry = UsersFile.Key(
            name: name, role: role, kinds: kinds, hash: key.storedHash, createdAt: now, expiresAt: lifetime.map { now + $0 })
        let created = try access.edit(creating: true) { (file, isNew) throws(UsersFileAccess.Exit) in
            do {
                try file.add(entry)
            } catch {
                throw UsersFileAccess.fail(1, "\(access.path): \(error); nothing was changed")
            }
            return isNew
        }
        let scope = kinds.map { "kinds \($0.joined(separator: ","))" } ?? "every kind"
        let until = entry.expiresAt.map { "until \(UsersFile.timestamp($0))" } ?? "until revoked"
        UsersFileAccess.note(
            "\(created ? "created \(access.path) with" : "added") key \(name) (\(role.rawValue), \(scope), \(until)); "
                + "it is shown this once: keep it now")
        // Printed only once the file holds its hash: a key that was shown but not saved would not work.
        Output.line(key.text)
    }

    /// `--kinds a,b`: nil when not given; every name must be a kind name, each once.
    private static func kinds(_ arguments: Arguments) throws(UsersFileAccess.Exit) -> [String]? {
        guard let text = arguments.last("kinds") else { return nil }
        let kinds = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for kind in kinds {
            if let problem = UsersFile.problem(withKind: kind) { throw UsersFileAccess.fail(2, "--kinds: \(problem)") }
        }
        guard Set(kinds).count == kinds.count else { throw UsersFileAccess.fail(2, "--kinds names a kind twice") }
        return kinds
    }

    private static func revoke(_ arguments: Arguments) throws(UsersFileAccess.Exit) {
        let name = try UsersFileAccess.name(arguments, command: "revoke", usage: usageText)
        let access = try UsersFileAccess.locate(arguments, usage: usageText)
        try access.edit { (file, _) throws(UsersFileAccess.Exit) in
            guard file.removeKey(named: name) else {
                let known = file.keys.map(\.name).joined(separator: ", ")
                throw UsersFileAccess.fail(1, "\(access.path) has no key named \"\(name)\" (its keys: \(known.isEmpty ? "none" : known))")
            }
        }
        UsersFileAccess.note("revoked key \(name) in \(access.path)")
    }

    /// Names, roles, scopes and times; never the hashes.
    private static func list(_ arguments: Arguments) throws(UsersFileAccess.Exit) {
        guard arguments.positionals.isEmpty else { throw UsersFileAccess.fail(2, "list takes no NAME\n\(usageText)") }
        let file = try UsersFileAccess.locate(arguments, usage: usageText).load()
        let now = Int64(Date().timeIntervalSince1970.rounded(.down))
        let rows = file.keys.map { key in
            [
                key.name, key.role.rawValue, key.kinds?.joined(separator: ",") ?? "*", UsersFile.timestamp(key.createdAt),
                key.expiresAt.map { UsersFile.timestamp($0) + ($0 <= now ? " (expired)" : "") } ?? "never",
            ]
        }
        for line in UsersFileAccess.table([["NAME", "ROLE", "KINDS", "CREATED", "EXPIRES"]] + rows) {
            print(line)
        }
    }
}
