import Synchronization

/// A count shared between threads without a lock: how many events a subscriber holds undelivered.
/// Thread: any; relaxed atomics, because it only paces a producer and needs no ordering.
public final class BacklogGauge: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    public func add(_ count: Int) { value.wrappingAdd(count, ordering: .relaxed) }
    public func subtract(_ count: Int) { value.wrappingSubtract(count, ordering: .relaxed) }
    public var current: Int { value.load(ordering: .relaxed) }
}
