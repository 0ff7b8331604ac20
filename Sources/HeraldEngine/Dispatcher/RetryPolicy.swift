/// How a kind retries a failed attempt (not a cancel): up to `retries` more attempts, the first after
/// `delay` seconds, each further one after twice as long, at most ten minutes, with ±10 % jitter so
/// many jobs that failed together do not all retry together. A plain value; any thread.
public struct RetryPolicy: Sendable, Equatable {
    public var retries: Int
    public var delay: Double

    public init(retries: Int, delay: Double) {
        self.retries = retries
        self.delay = delay
    }

    /// The longest wait before a retry, in seconds.
    public static let maxDelay = 600.0

    /// Seconds to wait after attempt `attempt` (1, 2, …) failed; `jitter` is from -1 to 1.
    public func delay(after attempt: Int, jitter: Double) -> Double {
        let doubled = delay * Double(1 << min(max(attempt - 1, 0), 20))
        return min(Self.maxDelay, doubled) * (1 + 0.1 * max(-1, min(1, jitter)))
    }
}
