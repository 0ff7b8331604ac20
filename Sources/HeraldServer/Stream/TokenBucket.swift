/// A per-connection command rate limit: `rate` tokens per second, at most `burst` saved up.
/// A plain value; `now` in seconds on a monotonic clock.
public struct TokenBucket: Sendable {
    public let rate: Double
    public let burst: Double
    private var tokens: Double
    private var last: Double?

    public init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
        self.tokens = burst
    }

    /// Takes one token if there is one.
    public mutating func take(now: Double) -> Bool {
        if let last { tokens = min(burst, tokens + (now - last) * rate) }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
