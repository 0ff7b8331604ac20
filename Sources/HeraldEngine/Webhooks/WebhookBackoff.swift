/// When a failed delivery is tried again (docs/webhooks.md): 10 attempts in all, the retries 5 s,
/// 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h and 8 h after the attempt before, so a receiver down
/// for most of a day still gets the delivery (the last attempt is about 15.7 h after the first).
/// `scale` multiplies every delay (`herald serve --webhook-retry-scale`): tests shorten the hours to
/// milliseconds without changing the schedule's shape. A plain value; any thread.
public struct WebhookBackoff: Sendable, Equatable {
    public static let delays: [Double] = [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800]
    public static var maxAttempts: Int { delays.count + 1 }

    public var scale: Double

    public init(scale: Double = 1) { self.scale = scale }

    /// Seconds to wait after failed attempt number `attempt` (1 is the first), or nil: that was the
    /// last attempt, the delivery is given up.
    public func delay(afterAttempt attempt: Int) -> Double? {
        guard attempt >= 1, attempt <= Self.delays.count else { return nil }
        return Self.delays[attempt - 1] * scale
    }
}
