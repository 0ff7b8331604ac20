import HeraldAccess
import HeraldEngine

/// The hub of one of several service threads: it reads the `SharedFrameRing` every thread shares
/// through the view it takes once per delivery, and never frames events itself (`StreamFanOut`
/// does, once for all threads). With one service thread the hub reads its own `FrameRing`; these
/// accessors choose. Thread: the service thread.
extension StreamHub {
    var ringFirstIndex: Int64 { sharedView?.firstIndex ?? ring.firstIndex }
    var ringEndIndex: Int64 { sharedView?.endIndex ?? ring.endIndex }
    /// The end of the ring as the hub last saw it (for the fan-out's pacing).
    public var ringEnd: Int64 { ringEndIndex }
    var ringCapacityBytes: Int { sharing?.ring.capacityBytes ?? ring.capacityBytes }
    var threadIndex: Int { sharing?.thread ?? 0 }

    /// The server's counters for `/metrics`: this hub's, plus with several threads the others' as of
    /// their last keepalive sweep (`MetricsBoard`).
    var serverMetrics: ServerMetrics { sharing.map { $0.metrics.total(current: metrics, thread: $0.thread) } ?? metrics }

    /// Leaves a copy of this hub's counters for the other threads: at every keepalive sweep, and
    /// whenever the transport calls it (after each drain and each connection's opening or closing).
    /// A store of a value whose containers are shared until written (no copy of the counters).
    public func publishMetrics() { sharing?.metrics.publish(metrics, thread: threadIndex) }

    func ringBacklogBytes(from index: Int64) -> Int {
        if let sharedView { return sharedView.backlogBytes(from: index) }
        return ring.backlogBytes(from: index)
    }

    /// The length of the frame at `index`, which the ring (or the view) still holds.
    func ringFrameLength(at index: Int64) -> Int {
        if let sharedView { return sharedView.entry(index).length }
        return ring.frameLength(at: index)
    }

    func ringIndex(after seq: Int64) -> Int64? {
        if let sharedView { return sharedView.index(after: seq) }
        return ring.index(after: seq)
    }

    /// Whole frames from `index` for a connection (`scope`: only its jobs' frames).
    func copyRing(from index: Int64, limit: Int, into buffer: inout [UInt8], scope: AccessScope?) -> (
        next: Int64, frames: Int, oldest: Int64?
    ) {
        if let sharedView {
            guard let scope else { return sharedView.copy(from: index, limit: limit, into: &buffer) }
            return sharedView.copy(from: index, limit: limit, into: &buffer) { admits($0, in: scope) }
        }
        guard let scope else { return ring.copy(from: index, limit: limit, into: &buffer) }
        return ring.copy(from: index, limit: limit, into: &buffer) { admits($0, in: scope) }
    }

    /// Applies one drain of the thread's inbox: takes the newest view of the shared ring (one lock,
    /// after the drain, so it covers every stamp drained), learns the kinds of the jobs the new
    /// frames tell of, applies the answers (snapshots and resumes go live at their stamp), and asks
    /// the connections that must write to write.
    public mutating func deliver(_ drained: ThreadInbox.Drained, now: Double, into actions: inout [HubAction]) {
        guard let sharing else { preconditionFailure("a hub with a ring of its own takes DeliveryInbox.Drained") }
        uptime = now
        if drained.stopRequested { beginClosing(into: &actions) }
        let endBefore = ringEndIndex
        let view = sharing.ring.view
        sharedView = view
        if drained.streamReset {
            logger.warning("the engine's stream restarted (a new epoch); every viewer gets a snapshot")
            resyncEveryone(into: &actions)
        }
        for record in view.jobChanges(from: endBefore) {
            // Every thread learns; one logs.
            if threadIndex == 0 {
                logger.info("job \(record.id) \(record.kind.rawValue) \(record.state.rawValue)\(record.error.map { ": \($0)" } ?? "")")
            }
            jobKinds.learn(record)
        }
        for delivery in drained.replies { apply(delivery, into: &actions) }
        for stamped in drained.ordered {
            readStamp = stamped.ringIndex
            apply(stamped.delivery, into: &actions)
            readStamp = nil
        }
        guard view.endIndex > endBefore else {
            recountBacklog()
            return
        }
        askWriters(endBefore: endBefore, now: now, into: &actions)
    }
}
