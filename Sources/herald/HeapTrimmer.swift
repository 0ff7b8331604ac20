import CSystemExtras
import Dispatch

/// Gives the allocator's free memory back to the kernel every `--heap-trim-interval` seconds while
/// `herald serve` runs. Measured in a 30-minute soak (docs/soak.md): the live heap stayed at about
/// 15 MB while the second malloc arena's resident size rose from 17 to 21 MB and more, freed chunks
/// below live ones that glibc does not return on its own; RSS followed it past the soak's 5 % bound.
/// One `malloc_trim` takes each arena's lock in turn for a walk of its free chunks (milliseconds
/// here); threads that allocate meanwhile wait for it.
/// Thread: `start` on the main thread; each trim on a utility GCD queue of its own.
final class HeapTrimmer {
    private let timer: any DispatchSourceTimer

    /// Starts trimming every `interval` seconds; nil for 0 (never).
    static func start(every interval: Double) -> HeapTrimmer? {
        interval > 0 ? HeapTrimmer(interval: interval) : nil
    }

    private init(interval: Double) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "herald.heap-trim", qos: .utility))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(1))
        timer.setEventHandler { _ = herald_trim_heap() }
        timer.resume()
    }

    deinit { timer.cancel() }
}
