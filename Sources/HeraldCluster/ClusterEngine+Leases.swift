import Dispatch
import HeraldEngine
import HeraldSupport

/// A node cut off from Redis cannot renew its leases, and once they lapse another node takes its
/// jobs over and runs them. So that no job runs twice at once, the node holds back by the age of its
/// last renewal (`LeaseStanding`): from half the lease it starts no attempt (no local run, nothing
/// handed to a worker), and from the whole lease it stops the attempts it runs. A renewal Redis takes
/// lets attempts start again.
extension ClusterEngine {
    /// Gates this node's attempts on its lease and starts watching it. Thread: the starting thread,
    /// in `start`, before the publisher's first renewal.
    func startLeaseWatch() {
        leaseStanding.withLock { $0 = LeaseStanding(lease: settings.nodeTimeoutSeconds, since: MonotonicCondition.now()) }
        local.gateAttempts { [leaseStanding] in leaseStanding.withLock { $0.verdict(at: MonotonicCondition.now()) } == .holds }
        let timer = DispatchSource.makeTimerSource(queue: leaseQueue)
        // A quarter second: small beside any lease (a second at least), so the attempts stop close
        // to the moment the lease may lapse.
        timer.schedule(deadline: .now() + 0.25, repeating: 0.25, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.watchLease() }
        timer.resume()
        leaseTimer.withLock { $0 = timer }
    }

    func stopLeaseWatch() {
        leaseTimer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    /// A renewal sent at `sentAt` was taken by Redis. Thread: the publisher thread.
    func leaseRenewed(sentAt: Double) {
        let wasHeldBack = leaseStanding.withLock { standing in
            defer { standing.renewed(sentAt: sentAt) }
            return standing.verdict(at: MonotonicCondition.now()) != .holds
        }
        if wasHeldBack { local.attemptsMayStart() }
    }

    /// Acts on a change of the lease's verdict: says so in the log, and stops the running attempts
    /// when the lease may have lapsed. Thread: `leaseQueue`.
    private func watchLease() {
        let verdict = leaseStanding.withLock { $0.verdict(at: MonotonicCondition.now()) }
        let previous = leaseVerdictSeen.withLock { seen in
            defer { seen = verdict }
            return seen
        }
        guard verdict != previous else { return }
        let lease = settings.nodeTimeoutSeconds
        switch verdict {
        case .holds:
            logger("this node renewed its leases again: attempts start again")
        case .noNewAttempts:
            logger("this node has not renewed its leases for \(lease / 2) s (half its lease): it starts no attempt until it does")
        case .lapsed:
            local.stopRunningAttempts { [logger] stopped in
                guard !stopped.isEmpty else { return }
                logger(
                    "this node has not renewed its leases for \(lease) s (its lease): another node may run its jobs now; "
                        + "it stops its \(stopped.count) running attempt(s)")
            }
        }
    }
}
