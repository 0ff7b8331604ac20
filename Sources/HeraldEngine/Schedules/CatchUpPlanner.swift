/// Which occurrences of a schedule to fire when it has missed some (the server was down, or the
/// schedule paused): the pure decision; persisting the last fired occurrence and firing are the
/// server's part. Pure functions; any thread.
///
/// The missed occurrences are those after the last fired one and at or before now. Without a last
/// fired one (a new schedule) nothing is missed. `none` fires none of them, `one` the latest,
/// `all` the latest `limit` of them, oldest first.
public enum CatchUpPlanner {
    public static func plan(schedule: Schedule, lastFired: Int64?, now: Int64, policy: CatchUpPolicy, limit: Int) -> CatchUpPlan {
        let next = schedule.next(after: now)
        guard let lastFired, lastFired < now else { return CatchUpPlan(fire: [], leftOut: false, next: next) }
        let wanted: Int
        switch policy {
        case .none: wanted = 0
        case .one: wanted = 1
        case .all: wanted = max(limit, 0)
        }
        let (latest, older) = latestOccurrences(wanted, of: schedule, after: lastFired, upTo: now)
        return CatchUpPlan(fire: latest, leftOut: older, next: next)
    }

    /// The last `count` occurrences in (`lower`, `upper`], oldest first, and whether earlier ones in
    /// that span exist. Searches back from `upper` in windows that double (an hour, two, four…), so
    /// a long outage of a frequent schedule costs what the kept occurrences cost, not the outage.
    static func latestOccurrences(_ count: Int, of schedule: Schedule, after lower: Int64, upTo upper: Int64) -> ([Int64], Bool) {
        guard count > 0 else {
            let any = schedule.next(after: lower).map { $0 <= upper } ?? false
            return ([], any)
        }
        var span: Int64 = 3600
        while true {
            let start = upper - span > lower ? upper - span : lower
            var found: [Int64] = []
            var cursor = start
            while let fire = schedule.next(after: cursor), fire <= upper {
                found.append(fire)
                if found.count > count { found.removeFirst() }
                cursor = fire
            }
            if found.count >= count || start == lower {
                guard let first = found.first else { return ([], false) }
                let earlier = schedule.next(after: lower).map { $0 < first } ?? false
                return (found, earlier)
            }
            span = span > Int64.max / 4 ? Int64.max / 2 : span * 2
        }
    }
}
