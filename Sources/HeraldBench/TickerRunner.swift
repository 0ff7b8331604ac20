import Dispatch
import Foundation
import HeraldEngine

/// `ticker` (benchmarks only, `herald serve --bench`): emits uncoalesced progress events at a steady
/// rate, to measure how many events per second the server can fan out.
///
/// Params: `rate` (events per second, 0...1,000,000, default 20; 0 = as fast as it is let),
/// `duration` (seconds, more than 0 and at most 3600, default 10), `count` (optional, 1...1e9: stop
/// after this many events, so that runs which deliver at different speeds carry the same events;
/// `duration` still bounds the run).
/// Summary: `{"events": n}`, the progress events the dispatcher accepted.
///
/// Pacing: the engine bounds its own queue (`emitProgressNow` says no past 4,096 hops in flight).
/// A rate-0 ticker would still outrun delivery, so `mayEmit` asks the side that owns the delivery
/// queue (the server's inbox gauge, wired by `herald serve --bench`) whether to wait: the engine
/// itself never reads server state.
public struct TickerRunner: JobRunner {
    public let kind = JobKind.ticker
    /// Whether delivery keeps up; false makes the ticker back off. Thread: the job's worker thread.
    let mayEmit: @Sendable () -> Bool

    /// Beyond this a rate means "flat out" anyway, and `rate * duration` must fit an Int64.
    static let maxRate = 1_000_000.0
    /// Longest single sleep, so a cancel takes effect within about this long.
    static let maxNap: UInt64 = 20_000_000
    /// How late past the duration events that fell due before it may still go out.
    static let lateness: UInt64 = 100_000_000
    /// The most events `count` may ask for.
    static let maxCount = 1_000_000_000
    /// Back-off after the dispatcher or `mayEmit` said "too many in flight".
    static let backOffMicros: useconds_t = 200

    public init(mayEmit: @escaping @Sendable () -> Bool = { true }) {
        self.mayEmit = mayEmit
    }

    /// Thread: the dispatcher queue.
    public func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject {
        try JobParams.refuseUnknown(params, allowed: ["rate", "duration", "count"])
        let rate = try JobParams.number(params, "rate", default: 20)
        guard rate >= 0, rate <= Self.maxRate else { throw .badRequest(field: "rate", "must be from 0 to 1000000") }
        let duration = try JobParams.number(params, "duration", default: 10)
        guard duration > 0, duration <= 3600 else { throw .badRequest(field: "duration", "must be more than 0 and at most 3600") }
        var checked: JSONObject = ["rate": .double(rate), "duration": .double(duration)]
        if params["count"] != nil, params["count"] != .null {
            checked["count"] = .int(Int64(try JobParams.integer(params, "count", default: 1, in: 1...Self.maxCount)))
        }
        return checked
    }

    /// Thread: the job's worker thread. Event `i` is due at `start + i / rate`: deadlines are
    /// absolute, so time lost to a slow wake-up is made up instead of adding up.
    public func run(_ context: JobContext) throws -> JSONObject {
        let rate = context.params["rate"]?.doubleValue ?? 20
        let duration = context.params["duration"]?.doubleValue ?? 10
        let count = context.params["count"]?.intValue
        let paced = rate > 0 ? Int64((rate * duration).rounded(.down)) : nil
        // Rate 0 without a count has no end but the duration; its events say total 0.
        let endless = paced == nil && count == nil
        let total = [paced, count].compactMap { $0 }.min() ?? 0
        let start = DispatchTime.now().uptimeNanoseconds
        let end = start + UInt64(duration * 1e9)
        // The last event is due exactly at `end`: allow a late wake-up 100 ms to send what is due.
        let stop = end + (rate > 0 ? Self.lateness : 0)
        var next: Int64 = 1
        while endless || next <= total {
            try context.checkCancelled()
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= stop { break }
            if rate > 0 {
                let due = start + UInt64(Double(next) / rate * 1e9)
                if now < due {
                    usleep(useconds_t(min(due - now, Self.maxNap) / 1000))
                    continue
                }
            }
            if mayEmit(), context.emitProgressNow(JobProgress(completed: next, total: total)) {
                next += 1
            } else {
                usleep(Self.backOffMicros)  // The same value is tried again after the back-off.
            }
        }
        return ["events": .int(next - 1)]
    }
}
