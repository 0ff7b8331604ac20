/// What a writable callback should do.
public enum WriteStep: Equatable, Sendable {
    /// Nothing to write.
    case idle
    /// The buffer holds `frames` whole frames to write with one raw write; `more` asks for another
    /// writable callback afterwards.
    case write(frames: Int, more: Bool)
    /// Send a close frame with this code and reason, then close.
    case close(code: UInt16, reason: String)
}
