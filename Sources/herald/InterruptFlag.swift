import Synchronization

/// Set by the SIGINT/SIGTERM handler (on a dispatch queue), read by the command's loop.
final class InterruptFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
