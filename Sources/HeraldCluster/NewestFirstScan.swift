/// Reads a Redis sorted set from the highest score down, a window at a time, bounded by score rather
/// than by position: other nodes add members while a scan goes on, and a member added at the top
/// would push the next window's positions down by one, so that a scan by offset would read the
/// last member of a window again (a job listed twice). A window that ends inside a run of equal
/// scores is cut before that score, and the next window starts at it; a window of one score only is
/// read whole, and the next starts below it. Members added above the scan's position are not seen;
/// none is seen twice. Plain logic over a `read` of `ZREVRANGEBYSCORE`, so that tests can change
/// the set between reads.
struct NewestFirstScan {
    /// A member and its score, as `ZREVRANGEBYSCORE … WITHSCORES` answers them.
    typealias Entry = (member: String, score: String)
    /// `ZREVRANGEBYSCORE key max min WITHSCORES [LIMIT 0 count]`; `max` and `min` as Redis takes them
    /// (`+inf`, `<score>`, `(<score>` for below it).
    typealias Read = (_ max: String, _ min: String, _ count: Int?) throws -> [Entry]

    /// Members per read (but the members of one score, which are read whole).
    let window: Int

    /// Hands `visit` the members from `highest` (a `max` bound) down, in order, a batch at a time,
    /// until the set ends or `visit` returns false.
    func scan(from highest: String, read: Read, visit: ([String]) throws -> Bool) throws {
        var upper = highest
        while true {
            var entries = try read(upper, "-inf", window)
            let full = entries.count >= window
            if full, let lowest = entries.last?.score {
                // The window may have stopped inside this score's members: the next one starts with
                // them all, or, when the window held nothing else, they are read whole now.
                entries.removeAll { $0.score == lowest }
                if entries.isEmpty {
                    entries = try read(lowest, lowest, nil)
                    upper = "(" + lowest
                } else {
                    upper = lowest
                }
            }
            guard !entries.isEmpty else { return }
            guard try visit(entries.map(\.member)), full else { return }
        }
    }
}
