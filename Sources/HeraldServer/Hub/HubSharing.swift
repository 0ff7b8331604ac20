/// What the hub of one of several service threads shares with the others (`StreamFanOut.sharing`):
/// the ring, its thread's index, the server's connection limit and the board `/metrics` adds up.
/// A value of references to objects that guard themselves; any thread.
public struct HubSharing: Sendable {
    public let ring: SharedFrameRing
    public let thread: Int
    public let connections: ConnectionBudget
    public let metrics: MetricsBoard
}
