import Foundation
import HeraldAccess

/// What `herald users` and `herald keys` share: finding the users file (`--users FILE`, else
/// `$HERALD_USERS`), reading it, writing it back, and the one-line messages and exit codes they end with
/// (0 done; 1 refused: a name taken or unknown, passwords that differ; 2 bad usage or a file that
/// cannot be read or written). Messages go to stderr: stdout carries only data (a new key, a listing).
struct UsersFileAccess {
    /// A command's end: its exit code, the message already printed.
    struct Exit: Error {
        let code: Int32
    }

    let path: String

    /// The file named by `--users` or `$HERALD_USERS`.
    static func locate(_ arguments: Arguments, usage: String) throws(Exit) -> UsersFileAccess {
        let named = arguments.last("users") ?? ProcessInfo.processInfo.environment["HERALD_USERS"].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = named else {
            throw fail(2, "no users file: give --users FILE or set HERALD_USERS\n\(usage)")
        }
        return UsersFileAccess(path: path)
    }

    var exists: Bool { FileManager.default.fileExists(atPath: path) }

    /// The file as it is now; `creating`: an empty one when there is no file yet (the adds create it).
    func load(creating: Bool = false) throws(Exit) -> UsersFile {
        if creating && !exists { return UsersFile() }
        do {
            return try UsersFile.load(path: path)
        } catch {
            throw Self.fail(2, "\(error)")
        }
    }

    /// Reads the file, lets `change` edit it and writes it back, holding an exclusive `flock` on the
    /// file's folder throughout: two commands run at once (two `keys add` in a deploy script) each see
    /// the other's edit instead of the last writer's file silently dropping the first one's. The folder,
    /// not the file, because each save replaces the file (a lock on the old one would not hold the next
    /// command out) and a lock file would be left behind. `change` gets whether the file is being
    /// created. Nothing is written when `change` throws.
    func edit<Result>(creating: Bool = false, _ change: (inout UsersFile, _ isNew: Bool) throws(Exit) -> Result) throws(Exit) -> Result {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.fail(2, "cannot open \(folder): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Self.fail(2, "cannot lock \(folder): \(String(cString: strerror(errno)))") }
        }
        let isNew = !exists
        var file = try load(creating: creating)
        let result = try change(&file, isNew)
        try save(file)
        return result
    }

    func save(_ file: UsersFile) throws(Exit) {
        do {
            try file.save(path: path)
        } catch {
            throw Self.fail(2, "\(error)")
        }
    }

    /// Prints `herald: message` on stderr and gives the exit to throw.
    static func fail(_ code: Int32, _ message: String) -> Exit {
        note(message)
        return Exit(code: code)
    }

    static func note(_ message: String) {
        FileHandle.standardError.write(Data("herald: \(message)\n".utf8))
    }

    /// `--role R`, required and one of the roles.
    static func role(_ arguments: Arguments, usage: String) throws(Exit) -> Role {
        let roles = Role.allCases.map(\.rawValue).joined(separator: ", ")
        guard let text = arguments.last("role") else { throw fail(2, "--role is required (one of \(roles))\n\(usage)") }
        guard let role = Role(rawValue: text) else { throw fail(2, "unknown role \"\(text)\"; the roles are \(roles)\n\(usage)") }
        return role
    }

    /// The one NAME a subcommand takes, checked against the users file's rule for names.
    static func name(_ arguments: Arguments, command: String, usage: String) throws(Exit) -> String {
        guard arguments.positionals.count == 1 else {
            throw fail(2, (arguments.positionals.isEmpty ? "\(command) needs a NAME" : "\(command) takes one NAME") + "\n\(usage)")
        }
        let name = arguments.positionals[0]
        if let problem = UsersFile.problem(withName: name) { throw fail(2, "\(problem)\n\(usage)") }
        return name
    }

    /// Rows as columns as wide as their widest cell, two spaces apart, the last column unpadded.
    static func table(_ rows: [[String]]) -> [String] {
        var widths: [Int] = []
        for row in rows {
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }
}
