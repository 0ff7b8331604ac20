/// What a node may still do with the jobs it holds, by the age of its last lease renewal that Redis
/// took. Another node may take a job over once its lease entry has been idle in Redis for the whole
/// lease (`--node-lease`); the entry's idle time restarts when Redis runs a renewal, which is never
/// before the renewal was sent. So the age is counted from when that renewal was *sent*: the lease
/// cannot lapse in Redis before that age reaches the lease.
///
/// - Younger than half the lease: attempts start as usual.
/// - From half the lease: no new attempt starts (no local run, nothing handed to a worker), so none
///   begins that another node could start too; the other half is the margin for a renewal that is
///   late, and for the attempts already under way.
/// - From the whole lease: the lease may have lapsed, another node may run the jobs now: this node
///   stops its running attempts.
///
/// Ages are on the monotonic clock (a step of the wall clock moves none of them). A plain value:
/// the owner guards it (`ClusterEngine.leaseStanding`); tests pass the time in.
struct LeaseStanding: Sendable, Equatable {
    enum Verdict: Sendable, Equatable {
        /// The lease holds: attempts start.
        case holds
        /// Past half the lease without a renewal: no new attempt starts.
        case noNewAttempts
        /// Past the whole lease: the running attempts stop too.
        case lapsed
    }

    /// The lease, in seconds.
    let lease: Double
    /// When (monotonic seconds) the newest renewal Redis took was sent.
    private(set) var renewalSentAt: Double

    /// `start`: when the node last knew its leases fresh (it joined the cluster; a start's lease is
    /// written fresh when Redis admits it).
    init(lease: Double, since start: Double) {
        self.lease = lease
        self.renewalSentAt = start
    }

    /// A renewal sent at `sentAt` was taken by Redis. An older one answering late changes nothing.
    mutating func renewed(sentAt: Double) {
        renewalSentAt = max(renewalSentAt, sentAt)
    }

    func verdict(at now: Double) -> Verdict {
        let age = now - renewalSentAt
        if age >= lease { return .lapsed }
        if age >= lease / 2 { return .noNewAttempts }
        return .holds
    }
}
