/// What a dispatcher is made with, fixed for its life. Thread: any.
struct DispatcherSetup: Sendable {
    /// Differs on every start, so clients know a resume cannot work.
    let epoch: String
    let configuration: EngineConfiguration
    let environment: JobEnvironment
    let runners: RunnerSet
    /// Time for leases, retries and pacing, and the timers.
    let clock: any DispatcherClock
    /// The wall clock, milliseconds since 1970: jobs' times and the schedules' occurrences, never a
    /// duration. `WallClock.millis` in the server; tests step it to show a step changes no duration.
    let wallClock: @Sendable () -> Int64
}
