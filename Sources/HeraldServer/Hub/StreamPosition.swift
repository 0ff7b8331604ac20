import HeraldEngine

/// Where a connection's stream stands.
enum StreamPosition: Equatable {
    /// Events up to `coveredThrough` are covered by what it was sent (a snapshot or a resume); later
    /// ones are appended as they come.
    case live(coveredThrough: Int64)
    /// Waiting for a snapshot asked for at or after this overflow generation; events are skipped.
    case awaitingSnapshot(reason: WireEncoder.SnapshotReason, generation: Int)
    /// Waiting for the engine's answer to a resume; events are skipped.
    case awaitingResume
    /// Fell off the ring (a slow client) and holds nothing: its resync snapshot is asked for at its
    /// next writable callback, once its socket takes bytes again, so a reader that stalls does not hold
    /// a snapshot (hundreds of KB with a full job history) it cannot read. `mark` is the ring's end
    /// when it was last counted: if the ring moves past it before the connection can write, that
    /// counts as one more resync (docs/protocol.md, "Slow clients", states the count exactly).
    case behind(mark: Int64)
    /// No stream (the echo endpoint) or closing.
    case none
}
