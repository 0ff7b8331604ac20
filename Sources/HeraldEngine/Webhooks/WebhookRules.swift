/// Every `"notify"` entry of a jobs file and where it was declared: for every job (the file's own
/// `"notify"`), on a kind, or on a schedule. A webhook is its URL: entries that name the same URL
/// share its deliveries' status and must share its secret. A plain value; any thread.
public struct WebhookRules: Sendable, Equatable {
    public var everyJob: [NotifyEntry] = []
    public var byKind: [String: [NotifyEntry]] = [:]
    public var bySchedule: [String: [NotifyEntry]] = [:]

    public init(everyJob: [NotifyEntry] = [], byKind: [String: [NotifyEntry]] = [:], bySchedule: [String: [NotifyEntry]] = [:]) {
        self.everyJob = everyJob
        self.byKind = byKind
        self.bySchedule = bySchedule
    }

    public var isEmpty: Bool { webhooks.isEmpty }

    /// Every entry, in the file's order: every job's, then kinds', then schedules' (by name).
    var allEntries: [NotifyEntry] {
        everyJob + byKind.keys.sorted().flatMap { byKind[$0] ?? [] } + bySchedule.keys.sorted().flatMap { bySchedule[$0] ?? [] }
    }

    /// One entry per webhook URL, the first declared, for its secret and status.
    public var webhooks: [NotifyEntry] {
        var seen = Set<String>()
        return allEntries.filter { seen.insert($0.webhook).inserted }
    }

    /// A webhook URL declared with two different secret files; nil when there is none.
    var conflict: String? {
        var secrets: [String: String] = [:]
        for entry in allEntries {
            if let other = secrets.updateValue(entry.secretFile, forKey: entry.webhook), other != entry.secretFile {
                return "webhook \(entry.webhook) is declared with two secret files (\(other), \(entry.secretFile)); give it one"
            }
        }
        return nil
    }

    /// The webhooks a job that ended with `event` is told to, each once however many entries match.
    public func webhooks(for record: JobRecord, event: NotifyEvent) -> [NotifyEntry] {
        var candidates = everyJob + (byKind[record.kind.rawValue] ?? [])
        if let schedule = record.schedule { candidates += bySchedule[schedule] ?? [] }
        var seen = Set<String>()
        return candidates.filter { $0.hears(event) && seen.insert($0.webhook).inserted }
    }
}
