import Glibc

/// The wall clock (`CLOCK_REALTIME`), the clock of jobs' times and events' `ts`: read with
/// `clock_gettime` directly, not through `Date`, because the service thread reads it per write.
/// Monotonic time, for durations and deadlines, is `DispatcherClock`'s (HeraldEngine). Thread: any.
public enum WallClock {
    /// Microseconds since 1970.
    public static func micros() -> Int64 {
        let now = timespecNow()
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }

    /// Milliseconds since 1970.
    public static func millis() -> Int64 { micros() / 1_000 }

    /// The time as `clock_gettime` gives it, for formatting.
    public static func timespecNow() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }
}
