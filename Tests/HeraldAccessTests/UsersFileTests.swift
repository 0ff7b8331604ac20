import Foundation
import HeraldAccess
import HeraldCrypto
import HeraldTestSupport
import Testing

/// The users file's format: what it reads, what it refuses and how it says so, and how it is written.
@Suite struct UsersFileTests {
    static let cheap = Argon2id.Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)
    static let aliceHash = Argon2id.hash(password: "alice's password", parameters: cheap)
    static let keyHash = "sha256:" + String(repeating: "ab", count: 32)

    static let sample = UsersFile(
        users: [
            .init(name: "alice", role: .admin, passwordHash: aliceHash),
            .init(name: "bob.smith@example", role: .viewer, passwordHash: Argon2id.hash(password: "b", parameters: cheap)),
        ],
        keys: [
            .init(name: "ci", role: .operator, kinds: ["deploy", "backup-db"], hash: keyHash, createdAt: 1_796_000_000),
            .init(
                name: "grafana", role: .viewer, hash: "sha256:" + String(repeating: "0f", count: 32), createdAt: 0, expiresAt: 1_800_000_000
            ),
        ])

    /// A version-1 file with one user and one key, with `change` applied to its JSON object first.
    static func text(_ change: (inout [String: Any]) -> Void = { _ in }) -> Data {
        var object: [String: Any] = [
            "version": 1,
            "users": [["name": "alice", "role": "admin", "password": aliceHash]],
            "keys": [["name": "ci", "role": "operator", "hash": keyHash, "created": "2026-12-06T12:00:00Z"]],
        ]
        change(&object)
        return try! JSONSerialization.data(withJSONObject: object)
    }

    static func user(_ object: inout [String: Any], _ field: String, _ value: Any?) {
        var users = object["users"] as! [[String: Any]]
        users[0][field] = value
        object["users"] = users
    }

    static func key(_ object: inout [String: Any], _ field: String, _ value: Any?) {
        var keys = object["keys"] as! [[String: Any]]
        keys[0][field] = value
        object["keys"] = keys
    }

    @Test func encodedTextReadsBackTheSame() throws {
        let file = Self.sample
        #expect(try UsersFile.parse(file.encoded()) == file)
        let text = String(decoding: file.encoded(), as: UTF8.self)
        #expect(text.contains("\"created\": \"2026-11-30T00:53:20Z\""))
        #expect(text.contains("\"expires\": \"2027-01-15T08:00:00Z\""))
        #expect(text.contains(Self.aliceHash), "hashes are written without escaped slashes")
        #expect(try UsersFile.parse(UsersFile().encoded()) == UsersFile())
    }

    @Test func readsAHandWrittenFile() throws {
        let file = try UsersFile.parse(Self.text())
        #expect(file.users == [.init(name: "alice", role: .admin, passwordHash: Self.aliceHash)])
        #expect(file.keys == [.init(name: "ci", role: .operator, hash: Self.keyHash, createdAt: 1_796_558_400)])
        let onlyUsers = try UsersFile.parse(Self.text { $0["keys"] = nil })
        #expect(onlyUsers.keys.isEmpty && onlyUsers.users.count == 1)
    }

    /// Each mistake is refused with the entry, the field and the problem named.
    @Test(arguments: [
        (Data("{\n  \"version\": 1,\n  \"users\": [x]\n}".utf8), "line 3, column 13: not valid JSON"),
        (Data("[]".utf8), "the file must be a JSON object"),
        (text { $0["version"] = nil }, "version: must be 1"),
        (text { $0["version"] = 2 }, "version: 2 is not a version this herald reads (it reads 1)"),
        (text { $0["version"] = "1" }, "version: must be 1"),
        (text { $0["admins"] = [] }, "unknown field \"admins\""),
        (text { $0["users"] = ["alice"] }, "users[0]: must be an object"),
        (text { $0["users"] = "alice" }, "users: must be a list"),
        (text { user(&$0, "email", "a@example.org") }, "users[0] (\"alice\"): unknown field \"email\""),
        (
            text { user(&$0, "role", "boss") },
            "users[0] (\"alice\").role: unknown role \"boss\" (the roles are viewer, operator, admin, worker)"
        ),
        (text { user(&$0, "role", nil) }, "users[0] (\"alice\"): \"role\" is missing"),
        (text { user(&$0, "name", "al ice") }, "users[0].name: a name must be 1 to 64 letters"),
        (text { user(&$0, "name", "anonymous") }, "users[0].name: \"anonymous\" is the name of everyone"),
        (
            text { user(&$0, "password", "hunter2-in-clear") },
            "users[0] (\"alice\").password: is not an argon2id hash; it looks like a password in clear"
        ),
        (text { user(&$0, "password", 12345) }, "users[0] (\"alice\").password: must be a string"),
        (
            text { user(&$0, "password", "$argon2id$v=19$m=64,t=1,p=1$short$hash") },
            "users[0] (\"alice\").password: is a malformed argon2id hash"
        ),
        (
            text { user(&$0, "password", aliceHash.replacingOccurrences(of: "argon2id", with: "argon2i")) },
            "users[0] (\"alice\").password: is a hash of another kind"
        ),
        (text { key(&$0, "name", "alice") }, "\"alice\" names both a user and a key"),
        (
            text {
                $0["users"] = [
                    ["name": "a", "role": "admin", "password": aliceHash], ["name": "a", "role": "viewer", "password": aliceHash],
                ]
            }, "\"a\" names both a user and a user"
        ),
        (
            text { key(&$0, "hash", "hk_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG") },
            "keys[0] (\"ci\").hash: must be \"sha256:\" and 64 lowercase hex digits"
        ),
        (text { key(&$0, "hash", keyHash.uppercased()) }, "keys[0] (\"ci\").hash: must be"),
        (text { key(&$0, "hash", String(keyHash.dropLast())) }, "keys[0] (\"ci\").hash: must be"),
        (text { key(&$0, "kinds", []) }, "keys[0] (\"ci\").kinds: must be a non-empty list"),
        (text { key(&$0, "kinds", ["Deploy"]) }, "keys[0] (\"ci\").kinds: a kind must match"),
        (text { key(&$0, "kinds", ["deploy", "deploy"]) }, "keys[0] (\"ci\").kinds: names a kind twice"),
        (text { key(&$0, "created", "yesterday") }, "keys[0] (\"ci\").created: must be an ISO 8601 time"),
        (text { key(&$0, "created", nil) }, "keys[0] (\"ci\"): \"created\" is missing"),
        (text { key(&$0, "expires", 1_800_000_000) }, "keys[0] (\"ci\").expires: must be a string"),
    ])
    func mistakesAreRefusedByName(data: Data, expected: String) {
        #expect {
            try UsersFile.parse(data, path: "/etc/herald/users.json")
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("/etc/herald/users.json: ") && text.contains(expected) && !text.contains("hunter2")
        }
    }

    @Test func saveWritesOwnerOnlyAtomicallyAndLoadReadsItBack() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.url.appendingPathComponent("users.json").path
        #expect(throws: UsersFileError(path: path, "no such file")) { try UsersFile.load(path: path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644])
        let file = Self.sample
        try file.save(path: path)
        #expect(try UsersFile.load(path: path) == file)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(folder.names() == ["users.json"], "no temporary file is left behind")
    }

    @Test func saveIntoAMissingFolderFailsClearlyAndLeavesNothing() {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.url.appendingPathComponent("missing/users.json").path
        #expect {
            try UsersFile().save(path: path)
        } throws: { error in
            "\(error)".hasPrefix("\(path): cannot create a file in") && "\(error)".hasSuffix("No such file or directory")
        }
    }

    @Test func addRefusesTakenAndBadNamesAndRemoveFindsByName() throws {
        var file = Self.sample
        func refusal(adding user: UsersFile.User? = nil, key: UsersFile.Key? = nil) -> String? {
            do throws(UsersFileError) {
                if let user { try file.add(user) }
                if let key { try file.add(key) }
                return nil
            } catch {
                return "\(error)"
            }
        }
        let keyNamedAlice = refusal(key: UsersFile.Key(name: "alice", role: .viewer, hash: Self.keyHash, createdAt: 0))
        #expect(keyNamedAlice == "there is already a user named \"alice\"")
        let userNamedCI = refusal(adding: UsersFile.User(name: "ci", role: .viewer, passwordHash: Self.aliceHash))
        #expect(userNamedCI == "there is already a key named \"ci\"")
        let clearPassword = refusal(adding: UsersFile.User(name: "carol", role: .viewer, passwordHash: "carol's password"))
        #expect(clearPassword == "the password of \"carol\" is not an argon2id hash")
        let badName = refusal(adding: UsersFile.User(name: "-x", role: .viewer, passwordHash: Self.aliceHash))
        #expect(badName?.hasPrefix("a name must be") == true)
        #expect(file == Self.sample, "a refused add changes nothing")
        try file.add(UsersFile.User(name: "carol", role: .operator, passwordHash: Self.aliceHash))
        #expect(file.isNameTaken("carol"))
        let removals = [
            file.removeUser(named: "carol"), file.removeUser(named: "carol"), file.removeUser(named: "ci"), file.removeKey(named: "ci"),
        ]
        #expect(removals == [true, false, false, true], "removed once; a key is not a user")
        #expect(!file.isNameTaken("ci"))
    }

    @Test(arguments: [
        ("90m", Int64(5_400)), ("12h", 43_200), ("30d", 2_592_000), ("8w", 4_838_400), ("3650d", 315_360_000), ("90s", 90),
    ])
    func keyLifetimesParse(text: String, seconds: Int64) {
        #expect(KeyLifetime.seconds(parsing: text) == seconds)
    }

    @Test(arguments: ["", "d", "0d", "-1d", "+1d", "30", "30y", "1.5d", "3651d", "30 d", "9999999999999999999w"])
    func badKeyLifetimesAreRefused(text: String) {
        #expect(KeyLifetime.seconds(parsing: text) == nil)
    }
}
