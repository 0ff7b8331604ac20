/// What a jobs file declares: its kinds, and the schedules that start jobs of them.
/// A plain value, immutable after the file is read; any thread.
public struct JobsFileContents: Sendable {
    public var kinds: [CommandKind]
    public var schedules: [ScheduleDeclaration]

    public init(kinds: [CommandKind], schedules: [ScheduleDeclaration] = []) {
        self.kinds = kinds
        self.schedules = schedules
    }
}
