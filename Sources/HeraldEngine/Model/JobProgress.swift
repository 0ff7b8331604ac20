/// How far a job has got: units done of units in all, plus what it is doing in words.
/// `rate` (units per second, smoothed) and `eta` (seconds) are filled in by the dispatcher; they are
/// finite or nil (JSON has no infinity: one would be written as null and read back as nil, so the
/// value would not survive a round trip through the wire or history).
public struct JobProgress: Sendable, Hashable {
    public var completed: Int64
    public var total: Int64
    public var message: String?
    public var rate: Double?
    public var eta: Double?

    public init(completed: Int64 = 0, total: Int64 = 0, message: String? = nil, rate: Double? = nil, eta: Double? = nil) {
        self.completed = completed
        self.total = total
        self.message = message
        self.rate = rate.flatMap { $0.isFinite ? $0 : nil }
        self.eta = eta.flatMap { $0.isFinite ? $0 : nil }
    }

    /// 0...1, or 0 while the total is unknown.
    public var fraction: Double {
        guard total > 0 else { return 0 }
        return min(1, max(0, Double(completed) / Double(total)))
    }
}
