/// What a jobs file declares: its kinds, the schedules that start jobs of them, and the webhooks told
/// when jobs end.
/// A plain value, immutable after the file is read; any thread.
public struct JobsFileContents: Sendable {
    public var kinds: [CommandKind]
    public var schedules: [ScheduleDeclaration]
    /// Who is told when jobs end (`"notify"` on the file, its kinds and its schedules).
    public var notify: WebhookRules

    public init(kinds: [CommandKind], schedules: [ScheduleDeclaration] = [], notify: WebhookRules = WebhookRules()) {
        self.kinds = kinds
        self.schedules = schedules
        self.notify = notify
    }
}
