/// How long to wait before each reconnect: `initial` seconds, doubling after every failed attempt up
/// to `maximum`, back to `initial` after a success (`reset()`). While Redis is down connects are
/// refused at once, so without this a reconnect loop would spin. A plain value; owned by the thread
/// that reconnects.
public struct RedisBackoff: Sendable, Equatable {
    public let initial: Double
    public let maximum: Double
    /// Failed attempts since the last success.
    public private(set) var failures = 0

    /// Defaults: 50 ms, 100 ms, 200 ms, … 1.6 s, then 2 s. Bounds below 1 ms, or a maximum below the
    /// initial wait, are raised to those.
    public init(initial: Double = 0.05, maximum: Double = 2) {
        self.initial = max(initial.isFinite ? initial : 0.05, 0.001)
        self.maximum = max(maximum.isFinite ? maximum : 2, self.initial)
    }

    /// The wait before the next attempt, in seconds; counts one more failure.
    public mutating func nextDelay() -> Double {
        let delay = min(maximum, initial * Double(1 << min(failures, 30)))
        failures += 1
        return delay
    }

    /// A connect succeeded: the next failure waits `initial` again.
    public mutating func reset() { failures = 0 }
}
