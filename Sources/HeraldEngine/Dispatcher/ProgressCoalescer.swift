/// Decides which progress samples of one job become events, and adds rate and ETA.
///
/// At most one event per `minInterval`, except that the first value and the final value always go
/// out; an unchanged value never does. A plain value owned by the dispatcher queue; `now` is passed
/// in (seconds on any monotonic clock) so tests drive time themselves.
public struct ProgressCoalescer: Sendable {
    public let minInterval: Double
    private var lastEmitted: JobProgress?
    private var lastEmitTime: Double?
    private var rateSample: (completed: Int64, time: Double)?
    private var smoothedRate: Double?
    /// Samples that changed but were held back by the rate bound (the `coalesced` metric).
    public private(set) var heldBack = 0

    /// How much of each new rate measurement enters the smoothed rate.
    private static let smoothing = 0.3

    public init(maxEventsPerSecond: Double) {
        self.minInterval = maxEventsPerSecond > 0 ? 1 / maxEventsPerSecond : 0
    }

    /// Returns the progress to emit now, or nil. `final` is the job's last value, sent regardless of the bound.
    public mutating func offer(_ sample: JobProgress, now: Double, final: Bool = false) -> JobProgress? {
        if let lastEmitted, lastEmitted.completed == sample.completed, lastEmitted.total == sample.total,
            lastEmitted.message == sample.message
        {
            return nil
        }
        if !final, let lastEmitTime, now - lastEmitTime < minInterval {
            heldBack += 1
            return nil
        }
        var emitted = sample
        updateRate(completed: sample.completed, now: now)
        emitted.rate = smoothedRate
        // In Double: counts come from runners, and an Int64 difference could overflow on this queue.
        if let rate = smoothedRate, rate > 0, sample.total > 0 {
            // A rate that has decayed to almost nothing gives an infinite ETA: unknown, not infinity.
            let eta = max(0, Double(sample.total) - Double(sample.completed)) / rate
            if eta.isFinite { emitted.eta = eta }
        }
        lastEmitted = emitted
        lastEmitTime = now
        return emitted
    }

    private mutating func updateRate(completed: Int64, now: Double) {
        defer { rateSample = (completed, now) }
        guard let previous = rateSample, now > previous.time else { return }
        // A job that starts a new count (a new phase counting from zero) starts a new rate.
        guard completed >= previous.completed else { smoothedRate = nil; return }
        let instant = (Double(completed) - Double(previous.completed)) / (now - previous.time)
        if let smoothed = smoothedRate {
            smoothedRate = Self.smoothing * instant + (1 - Self.smoothing) * smoothed
        } else {
            smoothedRate = instant
        }
    }
}
