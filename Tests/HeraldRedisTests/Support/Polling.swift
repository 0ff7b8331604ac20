import Foundation

/// Polls `condition` every millisecond until it holds or `timeout` seconds pass; true when it held.
func poll(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if condition() { return true }
        if Date() >= deadline { return false }
        usleep(1_000)
    }
}

/// A value behind a lock, shared by reference between threads.
///
/// An `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux, Mutex waits on a futex
/// that ThreadSanitizer cannot see, so contended use reports false races.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched while `lock` is held.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    var value: Value { withLock { $0 } }
}
