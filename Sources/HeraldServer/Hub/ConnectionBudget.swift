import Synchronization

/// The server's connection limit, shared by every service thread's hub: each thread takes a place
/// for a handshake it accepts and gives it back when the connection (or the handshake) ends, so the
/// limit holds for the server, not per thread.
///
/// Threads: any service thread; a lock-free atomic count (a place taken is never lost to a race:
/// `take` is a compare-and-exchange loop).
public final class ConnectionBudget: Sendable {
    public let limit: Int
    private let taken = Atomic<Int>(0)

    public init(limit: Int) { self.limit = limit }

    /// Places taken now, across threads.
    public var count: Int { taken.load(ordering: .relaxed) }

    /// Takes one place, or answers false when the limit is reached.
    public func take() -> Bool {
        var current = taken.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = taken.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives back a place `take` gave.
    public func giveBack() {
        taken.wrappingSubtract(1, ordering: .relaxed)
    }
}
