import Foundation

/// One entry of a `"notify"` list in the jobs file: which endings are told to which webhook, signed
/// with which secret. Format (docs/webhooks.md): `{"on": ["failed", …], "webhook": "https://…",
/// "secretFile": "PATH"}`. A plain value, immutable after the file is read; any thread.
public struct NotifyEntry: Sendable, Equatable {
    public let on: Set<NotifyEvent>
    /// Where deliveries are POSTed: `https://…`, or `http://` to a loopback host.
    public let webhook: String
    /// The secret file as written (relative paths are from the jobs file's folder).
    public let secretFile: String
    public let secret: WebhookSecret

    static let keys: Set<String> = ["on", "webhook", "secretFile"]

    /// Reads one entry; `folder` is where a relative `secretFile` is found. The problem says what is
    /// wrong, never the secret.
    init(declaration: JSONValue, folder: String) throws(JobsFileError.Problem) {
        guard let object = declaration.objectValue else { throw .init("each \"notify\" entry must be an object") }
        if let unknown = object.keys.first(where: { !Self.keys.contains($0) }) {
            throw .init("\"notify\": unknown key \"\(unknown)\" (only \"on\", \"webhook\", \"secretFile\")")
        }
        let words = NotifyEvent.allCases.map(\.rawValue).joined(separator: ", ")
        guard let list = object["on"]?.arrayValue, !list.isEmpty else {
            throw .init("\"notify\": \"on\" must be a non-empty array of \(words)")
        }
        var on = Set<NotifyEvent>()
        for item in list {
            guard let word = item.stringValue, let event = NotifyEvent(rawValue: word) else {
                throw .init("\"notify\": \"on\" has \(JSONWriter.string(item)), which is none of \(words)")
            }
            on.insert(event)
        }
        self.on = on
        guard let webhook = object["webhook"]?.stringValue else { throw .init("\"notify\": \"webhook\" must be a URL") }
        if let problem = Self.problem(withURL: webhook) { throw .init("\"notify\": \"webhook\" \(problem)") }
        self.webhook = webhook
        guard let secretFile = object["secretFile"]?.stringValue, !secretFile.isEmpty else {
            throw .init("\"notify\": \"secretFile\" must name the file that holds the webhook's whsec_ secret")
        }
        self.secretFile = secretFile
        let path = secretFile.hasPrefix("/") ? secretFile : URL(fileURLWithPath: folder).appendingPathComponent(secretFile).path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .init("\"notify\": \"secretFile\" \(path) cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8), let secret = WebhookSecret(text: text) else {
            throw .init("\"notify\": \"secretFile\" \(path) does not hold a secret of the form whsec_ followed by base64")
        }
        self.secret = secret
    }

    public init(on: Set<NotifyEvent>, webhook: String, secretFile: String, secret: WebhookSecret) {
        self.on = on
        self.webhook = webhook
        self.secretFile = secretFile
        self.secret = secret
    }

    /// Whether a job that ended with `event` is told to this entry's webhook.
    public func hears(_ event: NotifyEvent) -> Bool { on.contains { $0.hears(event) } }

    /// What is wrong with `text` as a webhook URL; nil when it will do: `https://HOST…`, or
    /// `http://` to a loopback host (127.0.0.0/8, ::1, localhost), since plain HTTP elsewhere would
    /// carry jobs' records in clear.
    static func problem(withURL text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return "\"\(text)\" is not an absolute http(s) URL" }
        guard components.user == nil, components.password == nil else { return "must not carry a user or password" }
        switch scheme {
        case "https": return nil
        case "http":
            guard isLoopback(host) else {
                return "\"\(text)\": http:// is only for loopback receivers (127.0.0.1, ::1, localhost); use https://"
            }
            return nil
        default: return "\"\(text)\" has scheme \(scheme); only https:// (or http:// to loopback)"
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Reads a `"notify"` list.
    static func list(_ value: JSONValue, folder: String) throws(JobsFileError.Problem) -> [NotifyEntry] {
        guard let items = value.arrayValue else { throw .init("\"notify\" must be an array of entries") }
        var entries: [NotifyEntry] = []
        for item in items { entries.append(try NotifyEntry(declaration: item, folder: folder)) }
        return entries
    }
}
