import Dispatch
import Foundation
import Synchronization

/// Set by the SIGINT/SIGTERM handler (on a dispatch queue), read by the command's loop.
final class InterruptFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }

    /// Sets the flag on SIGINT/SIGTERM instead of dying, so a command can end cleanly (restore the
    /// terminal, drain its work). Keep the returned sources for as long as the flag should be set.
    func setOnSignals() -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in set() }
            source.resume()
            return source
        }
    }
}
