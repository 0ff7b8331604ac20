import Foundation

/// The users file's JSON, version 1:
///
///     {"version": 1,
///      "users": [{"name": "alice", "role": "admin", "password": "$argon2id$v=19$m=65536,t=1,p=1$…$…"}],
///      "keys": [{"name": "ci", "role": "operator", "kinds": ["deploy"], "hash": "sha256:<64 hex>",
///                "created": "2026-12-06T12:00:00Z", "expires": "2027-01-05T12:00:00Z"}]}
///
/// Read strictly: an unknown field, a wrong type, an unknown role, a name used twice (users and keys
/// share one namespace), a malformed hash or a password in clear is an error naming the entry and the
/// field, so a hand edit that would silently lock someone out (or let someone in) stops the server.
extension UsersFile {
    public static let formatVersion = 1

    /// Reads and checks the file at `path`.
    public static func load(path: String) throws(UsersFileError) -> UsersFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason =
                (error as NSError).code == NSFileReadNoSuchFileError ? "no such file" : "cannot read it: \(error.localizedDescription)"
            throw UsersFileError(path: path, reason)
        }
        return try parse(data, path: path)
    }

    /// Checks `data` as a users file; `path` only names it in errors.
    public static func parse(_ data: Data, path: String? = nil) throws(UsersFileError) -> UsersFile {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
            throw UsersFileError(path: path, location: syntaxErrorLocation(detail, in: data), "not valid JSON: \(detail)")
        }
        let reader = FieldReader(path: path)
        guard let object = root as? [String: Any] else { throw reader.error("the file must be a JSON object with \"version\"") }
        try reader.refuseUnknown(object, known: ["version", "users", "keys"], at: nil)
        guard let version = object["version"] as? Int else {
            throw reader.error(at: "version", "must be \(formatVersion) (the format's version), and is missing or not a number")
        }
        guard version == formatVersion else {
            throw reader.error(at: "version", "\(version) is not a version this herald reads (it reads \(formatVersion))")
        }
        var file = UsersFile()
        for (index, entry) in try reader.array(object["users"], at: "users").enumerated() {
            file.users.append(try reader.user(entry, at: "users[\(index)]"))
        }
        for (index, entry) in try reader.array(object["keys"], at: "keys").enumerated() {
            file.keys.append(try reader.key(entry, at: "keys[\(index)]"))
        }
        var seen: [String: String] = [:]
        for (kind, name) in file.users.map({ ("user", $0.name) }) + file.keys.map({ ("key", $0.name) }) {
            if let earlier = seen[name] {
                throw reader.error(
                    "\"\(name)\" names both a \(earlier) and a \(kind), or two \(kind)s: names must be unique across users and keys")
            }
            seen[name] = kind
        }
        return file
    }

    /// The file's text: one entry per line, users then keys, so a diff of two versions shows what changed.
    public func encoded() -> Data {
        func quoted(_ text: String) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        let userLines = users.map { user in
            "    {\"name\": \(quoted(user.name)), \"role\": \(quoted(user.role.rawValue)), \"password\": \(quoted(user.passwordHash))}"
        }
        let keyLines = keys.map { key in
            var fields = ["\"name\": \(quoted(key.name))", "\"role\": \(quoted(key.role.rawValue))"]
            if let kinds = key.kinds { fields.append("\"kinds\": [\(kinds.map(quoted).joined(separator: ", "))]") }
            fields.append("\"hash\": \(quoted(key.hash))")
            fields.append("\"created\": \(quoted(Self.timestamp(key.createdAt)))")
            if let expires = key.expiresAt { fields.append("\"expires\": \(quoted(Self.timestamp(expires)))") }
            return "    {\(fields.joined(separator: ", "))}"
        }
        func list(_ lines: [String]) -> String { lines.isEmpty ? "[]" : "[\n\(lines.joined(separator: ",\n"))\n  ]" }
        let text = "{\n  \"version\": \(Self.formatVersion),\n  \"users\": \(list(userLines)),\n  \"keys\": \(list(keyLines))\n}\n"
        return Data(text.utf8)
    }

    /// "line L, column C" for Foundation's "… around character N." (a byte offset from 0), so an editor
    /// can go to the mistake; nil when the message names no offset.
    private static func syntaxErrorLocation(_ detail: String, in data: Data) -> String? {
        guard let range = detail.range(of: "around character ") else { return nil }
        guard let offset = Int(detail[range.upperBound...].prefix(while: \.isNumber)), offset <= data.count else { return nil }
        let before = Array(data.prefix(offset))
        let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return "line \(line), column \(column)"
    }

    /// ISO 8601 in UTC, whole seconds: `2026-12-06T12:00:00Z`.
    public static func timestamp(_ seconds: Int64) -> String {
        timestampFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func seconds(fromTimestamp text: String) -> Int64? {
        guard let date = timestampFormatter().date(from: text) else { return nil }
        return Int64(date.timeIntervalSince1970)
    }

    /// A new formatter per call: ISO8601DateFormatter is not documented as safe to share between threads.
    private static func timestampFormatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }
}

/// Reads one entry's fields, naming the entry (`users[1] "bob"`) and the field in every error.
private struct FieldReader {
    let path: String?

    func error(at location: String? = nil, _ problem: String) -> UsersFileError {
        UsersFileError(path: path, location: location, problem)
    }

    func refuseUnknown(_ object: [String: Any], known: Set<String>, at location: String?) throws(UsersFileError) {
        if let unknown = object.keys.filter({ !known.contains($0) }).sorted().first {
            throw error(at: location, "unknown field \"\(unknown)\" (the fields are \(known.sorted().joined(separator: ", ")))")
        }
    }

    func array(_ value: Any?, at location: String) throws(UsersFileError) -> [Any] {
        guard let value else { return [] }
        guard let array = value as? [Any] else { throw error(at: location, "must be a list") }
        return array
    }

    func string(_ object: [String: Any], _ field: String, at location: String) throws(UsersFileError) -> String {
        guard let value = object[field] else { throw error(at: location, "\"\(field)\" is missing") }
        guard let text = value as? String else { throw error(at: "\(location).\(field)", "must be a string") }
        return text
    }

    /// The entry's name, and the location that names it from now on.
    func named(_ entry: Any, at location: String, known: Set<String>) throws(UsersFileError) -> ([String: Any], String, String) {
        guard let object = entry as? [String: Any] else { throw error(at: location, "must be an object") }
        let name = try string(object, "name", at: location)
        if let problem = UsersFile.problem(withName: name) { throw error(at: "\(location).name", problem) }
        let named = "\(location) (\"\(name)\")"
        try refuseUnknown(object, known: known, at: named)
        return (object, name, named)
    }

    func role(_ object: [String: Any], at location: String) throws(UsersFileError) -> Role {
        let text = try string(object, "role", at: location)
        guard let role = Role(rawValue: text) else {
            throw error(
                at: "\(location).role", "unknown role \"\(text)\" (the roles are \(Role.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return role
    }

    func user(_ entry: Any, at location: String) throws(UsersFileError) -> UsersFile.User {
        let (object, name, location) = try named(entry, at: location, known: ["name", "role", "password"])
        let role = try role(object, at: location)
        let password = try string(object, "password", at: location)
        if let problem = Argon2idHashCheck.problem(with: password) { throw error(at: "\(location).password", problem) }
        return UsersFile.User(name: name, role: role, passwordHash: password)
    }

    func key(_ entry: Any, at location: String) throws(UsersFileError) -> UsersFile.Key {
        let (object, name, location) = try named(entry, at: location, known: ["name", "role", "kinds", "hash", "created", "expires"])
        let role = try role(object, at: location)
        let hash = try string(object, "hash", at: location)
        guard APIKey.digest(ofStoredHash: hash) != nil else {
            throw error(at: "\(location).hash", "must be \"sha256:\" and 64 lowercase hex digits (a key's hash, never the key)")
        }
        var kinds: [String]?
        if let value = object["kinds"] {
            guard let list = value as? [String], !list.isEmpty else {
                throw error(at: "\(location).kinds", "must be a non-empty list of kind names (leave it out for every kind)")
            }
            for kind in list {
                if let problem = UsersFile.problem(withKind: kind) { throw error(at: "\(location).kinds", problem) }
            }
            guard Set(list).count == list.count else { throw error(at: "\(location).kinds", "names a kind twice") }
            kinds = list
        }
        let created = try time(object, "created", at: location)
        var expires: Int64?
        if object["expires"] != nil { expires = try time(object, "expires", at: location) }
        return UsersFile.Key(name: name, role: role, kinds: kinds, hash: hash, createdAt: created, expiresAt: expires)
    }

    private func time(_ object: [String: Any], _ field: String, at location: String) throws(UsersFileError) -> Int64 {
        let text = try string(object, field, at: location)
        guard let seconds = UsersFile.seconds(fromTimestamp: text) else {
            throw error(at: "\(location).\(field)", "must be an ISO 8601 time such as 2026-12-06T12:00:00Z, not \"\(text)\"")
        }
        return seconds
    }
}
