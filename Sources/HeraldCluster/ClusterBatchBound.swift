import HeraldEngine

/// How many of the events waiting in the publisher go to Redis in one append call: all that are
/// waiting when the publisher gets to run, so a batch is one event when the node is quiet and grows
/// with the load (what crosses to Redis, and Redis's per-call work, is paid per batch), up to `count`
/// events and `bytes` of encodings; at least one, so an event larger than `bytes` goes alone. The
/// caps keep one call's arguments bounded and Redis, which runs a script alone, from stalling the
/// other nodes for long. A value.
struct ClusterBatchBound: Sendable {
    let count: Int
    let bytes: Int

    /// The publisher's: 512 events or 1 MiB, a script call of about 1–2 ms in Redis.
    static let publisher = ClusterBatchBound(count: 512, bytes: 1 << 20)

    /// How many of the first events, whose encodings have these sizes, make the next batch.
    func size(ofEncodings sizes: some Sequence<Int>) -> Int {
        var taken = 0
        var total = 0
        for size in sizes {
            if taken == count || (taken > 0 && total + size > bytes) { break }
            taken += 1
            total += size
        }
        return taken
    }

    /// How many of `waiting`'s first events make the next batch.
    func size(of waiting: some Collection<SequencedEvent>) -> Int {
        size(ofEncodings: waiting.lazy.map(\.json.count))
    }
}
