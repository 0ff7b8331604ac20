import Foundation

/// A value behind a pthread mutex: the lock Herald uses for state shared between threads.
///
/// Not `Synchronization.Mutex`: on Linux that one waits with raw futexes, which ThreadSanitizer does
/// not see as synchronisation, so every contended use is reported as a race and the TSan run in CI
/// would be noise. A pthread mutex is understood by TSan and costs the same uncontended.
public final class Protected<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read or written while `mutex` is held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock. Keep it short, and call nothing from it that can
    /// block or take this lock again (an atomic store or an `async` hop is fine; a `sync` is not).
    @inline(__always)
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` holding the lock if no other thread holds it; nil at once if one does. Thread: any.
    @inline(__always)
    public func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
