/// This node's audit events waiting to be appended to the cluster's shared audit stream, oldest
/// first, and whether a drain is under way. Bounded: past `limit` the oldest go, counted in
/// `dropped` (they are still in the node's own `audit.jsonl`), so a Redis that is away for long
/// costs a bounded amount of memory. A value; `ClusterEngine` keeps it behind a lock.
struct AuditBacklog: Sendable, Equatable {
    /// One waiting entry: the fields of its `XADD`.
    typealias Line = [[UInt8]]

    let limit: Int
    private(set) var waiting: [Line] = []
    /// Events dropped by the bound since the node started.
    private(set) var dropped = 0
    /// Whether a drain is scheduled or running: one at a time.
    private(set) var draining = false

    init(limit: Int) {
        precondition(limit > 0, "an audit backlog holds at least one event")
        self.limit = limit
    }

    /// Adds `line`, dropping the oldest when the bound is reached. Returns whether a drain must be
    /// scheduled now (none was under way) and whether an event was dropped.
    mutating func add(_ line: Line) -> (mustDrain: Bool, droppedOne: Bool) {
        var droppedOne = false
        if waiting.count >= limit {
            waiting.removeFirst(waiting.count - limit + 1)
            dropped += 1
            droppedOne = true
        }
        waiting.append(line)
        let mustDrain = !draining
        draining = true
        return (mustDrain, droppedOne)
    }

    /// The oldest `count` waiting lines, for one round trip (they stay until `settle`).
    func batch(_ count: Int) -> [Line] { Array(waiting.prefix(count)) }

    /// The first `count` lines (a batch) reached Redis. Lines the bound dropped meanwhile were
    /// the oldest, those of the batch: only what is left of it is removed. `droppedWhenTaken` is
    /// `dropped` when the batch was taken.
    mutating func settle(_ count: Int, droppedWhenTaken: Int) {
        let alreadyGone = min(count, dropped - droppedWhenTaken)
        waiting.removeFirst(min(waiting.count, count - alreadyGone))
    }

    /// A drain ends: true when lines still wait (the drain goes on; `draining` stays set), false
    /// when none do (the next `add` schedules one).
    mutating func finishDrain() -> Bool {
        draining = !waiting.isEmpty
        return draining
    }

    /// Whether nothing waits.
    var isEmpty: Bool { waiting.isEmpty }
}
