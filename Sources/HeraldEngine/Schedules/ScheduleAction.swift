/// What a person or program asks of a schedule (`POST /api/schedules/NAME/ACTION`, `herald schedules`).
public enum ScheduleAction: String, Sendable, Equatable, CaseIterable {
    /// No occurrence fires until `resume`; persisted across restarts.
    case pause
    /// Occurrences fire again from now on; those missed while paused are not caught up.
    case resume
    /// Starts a job now, as an occurrence would, whatever the timing.
    case run
}
