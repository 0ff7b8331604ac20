/// What a dispatcher is made with, fixed for its life. Thread: any.
struct DispatcherSetup: Sendable {
    /// Differs on every start, so clients know a resume cannot work.
    let epoch: String
    let configuration: EngineConfiguration
    let environment: JobEnvironment
    let runners: RunnerSet
    /// Time for leases, retries and pacing, and the timers.
    let clock: any DispatcherClock
}
