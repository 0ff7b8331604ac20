/// The attached workers and the attempts they hold: who may take a job of a kind, whose lease ran
/// out, and whether a report comes from the holder of the current attempt (fencing). Pure: time is
/// passed in (seconds on a monotonic clock), so tests control it.
///
/// Thread: a value owned by the dispatcher queue.
public struct WorkerPool: Sendable {
    struct Member: Sendable {
        let name: String
        let kinds: [String]
        let slots: Int
        var draining = false
        var lastHeard: Double
        /// The attempts it holds, by job.
        var jobs: [JobID: Int] = [:]
    }

    private(set) var members: [WorkerSession: Member] = [:]
    /// Who holds each job's current attempt, and which attempt that is.
    private(set) var holders: [JobID: (session: WorkerSession, attempt: Int)] = [:]

    public init() {}

    public var count: Int { members.count }
    /// Attempts held by workers now.
    public var heldCount: Int { holders.count }

    public mutating func attach(_ session: WorkerSession, _ hello: WorkerHello, now: Double) {
        members[session] = Member(name: hello.name, kinds: hello.kinds, slots: hello.slots, lastHeard: now)
    }

    /// Forgets a worker; returns the attempts it held (now lost), oldest job first.
    public mutating func detach(_ session: WorkerSession) -> [(job: JobID, attempt: Int)] {
        guard let member = members.removeValue(forKey: session) else { return [] }
        for job in member.jobs.keys { holders.removeValue(forKey: job) }
        return member.jobs.map { (job: $0.key, attempt: $0.value) }.sorted { $0.job < $1.job }
    }

    public func isAttached(_ session: WorkerSession) -> Bool { members[session] != nil }

    public func name(of session: WorkerSession) -> String? { members[session]?.name }

    /// Anything from the worker renews its lease.
    public mutating func heard(_ session: WorkerSession, now: Double) {
        members[session]?.lastHeard = now
    }

    public mutating func drain(_ session: WorkerSession) {
        members[session]?.draining = true
    }

    /// Workers not heard from for `lease` seconds or more, in session order.
    public func expired(now: Double, lease: Double) -> [WorkerSession] {
        members.filter { now - $0.value.lastHeard >= lease }.map(\.key).sorted()
    }

    /// Whether any attached worker (draining or not) runs `kind`.
    public func serves(_ kind: JobKind) -> Bool {
        members.values.contains { $0.kinds.contains(kind.rawValue) }
    }

    /// A worker that runs `kind` and has a free slot: the least busy, then the one attached first.
    public func pick(_ kind: JobKind) -> WorkerSession? {
        members.filter { !$0.value.draining && $0.value.jobs.count < $0.value.slots && $0.value.kinds.contains(kind.rawValue) }
            .min { ($0.value.jobs.count, $0.key) < ($1.value.jobs.count, $1.key) }?.key
    }

    public mutating func assign(_ job: JobID, attempt: Int, to session: WorkerSession) {
        guard members[session] != nil else { return }
        members[session]?.jobs[job] = attempt
        holders[job] = (session, attempt)
    }

    /// The attempt ended (reported, cancelled or lost): the slot is free again.
    public mutating func release(_ job: JobID) {
        guard let holder = holders.removeValue(forKey: job) else { return }
        members[holder.session]?.jobs.removeValue(forKey: job)
    }

    /// Who holds the job's current attempt, if a worker does.
    public func holder(of job: JobID) -> (session: WorkerSession, attempt: Int)? { holders[job] }

    /// Whether `session` holds exactly this attempt of the job: only then is its report taken.
    public func holds(_ session: WorkerSession, job: JobID, attempt: Int) -> Bool {
        guard let holder = holders[job] else { return false }
        return holder.session == session && holder.attempt == attempt
    }

    /// Every worker, in the order they attached.
    public var infos: [WorkerInfo] {
        members.sorted { $0.key < $1.key }.map {
            WorkerInfo(
                name: $0.value.name, kinds: $0.value.kinds, slots: $0.value.slots, busy: $0.value.jobs.count, draining: $0.value.draining)
        }
    }
}
