import Dispatch

/// The dispatcher's time: a monotonic reading, and timers whose handlers run on a given queue.
/// `SystemClock` in the server; `ManualClock` in tests, which advance time instead of sleeping for
/// leases, retries and progress pacing.
public protocol DispatcherClock: Sendable {
    /// Seconds since a fixed point of this clock; never goes back. Thread: any.
    func now() -> Double

    /// Runs `handler` on `queue` once `delay` seconds have passed, then every `interval` seconds when
    /// one is given, until the returned timer is cancelled. Thread: any.
    func schedule(
        on queue: DispatchQueue, after delay: Double, repeating interval: Double?, _ handler: @escaping @Sendable () -> Void
    ) -> any ScheduledTimer
}

/// A timer `DispatcherClock.schedule` made.
public protocol ScheduledTimer: Sendable {
    /// No handler runs after this returns, except one already running. Thread: the timer's queue.
    func cancel()
}
