import Foundation

/// The wall clock of one IANA time zone (Foundation's `TimeZone`, from the system's tz database):
/// which wall time an instant shows, and which instant first shows a wall time. Instants are epoch
/// seconds; wall times are wall seconds (`CivilCalendar`). A plain value; any thread.
struct ZonedWallClock {
    let zone: TimeZone

    /// Seconds east of UTC at `instant`.
    func offset(at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
    }

    func wall(at instant: Int64) -> Int64 { instant + offset(at: instant) }

    /// The first instant whose wall time is `wall` or later. For a wall time that occurs once that
    /// is the instant it shows; for one that occurs twice (the hour repeated when clocks go back),
    /// the first of the two; for one that never occurs (skipped when clocks go forward), the
    /// instant the clocks jump: the first after the gap. It never decreases as `wall` grows.
    func firstInstant(reaching wall: Int64) -> Int64 {
        // The offsets in force around that wall time: a day either side covers any transition
        // that could give it two instants or none.
        var offsets: [Int64] = []
        for probe in stride(from: wall - 86400, through: wall + 86400, by: 21600) {
            let candidate = offset(at: probe)
            if !offsets.contains(candidate) { offsets.append(candidate) }
        }
        var earliest: Int64?
        for candidate in offsets {
            let instant = wall - candidate
            if offset(at: instant) == candidate { earliest = min(earliest ?? instant, instant) }
        }
        if let earliest { return earliest }
        // In a gap: the wall clock jumps over `wall` somewhere between these two instants; find
        // the first instant that shows `wall` or later, to the second.
        var low = wall - (offsets.max() ?? 0)
        var high = wall - (offsets.min() ?? 0)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if self.wall(at: middle) >= wall { high = middle } else { low = middle }
        }
        return high
    }
}
