/// One schedule's standing: its declaration, whether it is paused, the last occurrence handled, the
/// job it started that has not ended, the occurrences waiting for it (`overlap: queue`), and what
/// happened last. The decisions (which occurrences are due, what an occurrence does while a job of
/// the schedule runs) are pure functions of it and of the time given. A plain value owned by the
/// dispatcher queue (`Scheduler`).
struct ScheduleStanding: Equatable {
    /// What an occurrence does.
    enum Step: Equatable {
        /// Start a job.
        case start
        /// Nothing: the last job still runs (`overlap: skip`), or the queue is full.
        case skip
        /// Start once the running job has ended (`overlap: queue`).
        case wait
        /// Cancel the running job and start a new one (`overlap: replace`).
        case replace(JobID)
    }

    /// Occurrences due for longer than this (seconds) were missed (a stopped server, a stopped
    /// process, a wall clock stepped forward): the schedule's `catchUp` decides which of them fire.
    static let lateGrace: Int64 = 60
    /// Most occurrences waiting for the running job (`overlap: queue`); past it they are skipped.
    static let queuedKept = 10

    let declaration: ScheduleDeclaration
    var paused: Bool
    /// The latest occurrence (epoch seconds) handled: fired, skipped or missed.
    var lastOccurrence: Int64
    /// The job the schedule started last, while it has not ended.
    var running: JobID?
    var queued: [Int64] = []
    var last: ScheduleStatus.Last?
    var fired = 0
    var skipped = 0
    var missed = 0
    /// How late the last occurrence started (seconds after its time, jitter included).
    var lateness: Double?

    /// The occurrences to handle at `now` (epoch seconds), oldest first, and how many were missed
    /// and left out; moves `lastOccurrence` past them. An occurrence is due once its time plus its
    /// jitter has come. Those due for less than `lateGrace` (plus the jitter bound) are all handled;
    /// older ones only as the schedule's `catchUp` says.
    mutating func due(now: Int64) -> (occurrences: [Int64], missed: Int) {
        guard !paused else { return ([], 0) }
        let schedule = declaration.schedule
        var occurrences: [Int64] = []
        var missedNow = 0
        // Past this, an occurrence was missed whatever its jitter.
        let cutoff = now - Self.lateGrace - Int64(declaration.jitter.rounded(.up))
        if let first = schedule.next(after: lastOccurrence), first <= cutoff {
            let plan = CatchUpPlanner.plan(
                schedule: schedule, lastFired: lastOccurrence, now: cutoff, policy: declaration.catchUp, limit: declaration.catchUpLimit)
            occurrences = plan.fire
            missedNow = Self.count(schedule, after: lastOccurrence, upTo: cutoff) - plan.fire.count
            lastOccurrence = max(lastOccurrence, cutoff)
        }
        while let next = schedule.next(after: lastOccurrence), next + jitter(of: next) <= now {
            occurrences.append(next)
            lastOccurrence = next
        }
        missed += missedNow
        return (occurrences, missedNow)
    }

    /// What one occurrence does, given whether the schedule's last job still runs.
    mutating func step() -> Step {
        guard let running else { return .start }
        switch declaration.overlap {
        case .skip: return .skip
        case .replace: return .replace(running)
        case .queue: return queued.count < Self.queuedKept ? .wait : .skip
        }
    }

    /// The seconds an occurrence starts after its time: the same on every node and every run (a
    /// hash of the schedule's name and the occurrence), below `jitter`.
    func jitter(of occurrence: Int64) -> Int64 {
        guard declaration.jitter >= 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(declaration.name.utf8) + withUnsafeBytes(of: occurrence.littleEndian, Array.init) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int64(hash % UInt64(declaration.jitter))
    }

    /// How many occurrences fall in (`lower`, `upper`], counted up to a bound.
    static func count(_ schedule: Schedule, after lower: Int64, upTo upper: Int64, bound: Int = 100_000) -> Int {
        var count = 0
        var cursor = lower
        while count < bound, let next = schedule.next(after: cursor), next <= upper {
            count += 1
            cursor = next
        }
        return count
    }
}
