import Dispatch

/// The machine's monotonic clock and Dispatch timers.
public struct SystemClock: DispatcherClock {
    private let start = ContinuousClock.now

    public init() {}

    public func now() -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    public func schedule(
        on queue: DispatchQueue, after delay: Double, repeating interval: Double?, _ handler: @escaping @Sendable () -> Void
    ) -> any ScheduledTimer {
        let source = DispatchSource.makeTimerSource(queue: queue)
        // A tenth of the period, at most 20 ms: timers may be batched without a visible delay.
        let leeway = DispatchTimeInterval.microseconds(Int(min(0.02, (interval ?? delay) / 10) * 1_000_000))
        if let interval {
            source.schedule(deadline: .now() + max(0, delay), repeating: interval, leeway: leeway)
        } else {
            source.schedule(deadline: .now() + max(0, delay), leeway: leeway)
        }
        source.setEventHandler(handler: handler)
        source.resume()
        return DispatchTimer(source: source)
    }

    /// Sendable as Dispatch's sources are: `cancel` may be called from any thread.
    private struct DispatchTimer: ScheduledTimer, @unchecked Sendable {
        // @unchecked Sendable: a Dispatch source is thread-safe; only `cancel` is called on it.
        let source: any DispatchSourceTimer
        func cancel() { source.cancel() }
    }
}
