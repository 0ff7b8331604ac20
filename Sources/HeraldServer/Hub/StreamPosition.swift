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
    /// No stream (the echo endpoint) or closing.
    case none
}
