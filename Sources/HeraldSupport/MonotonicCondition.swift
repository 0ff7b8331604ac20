import Glibc

/// A lock with a condition whose timed waits count on the monotonic clock (`CLOCK_MONOTONIC`).
/// `NSCondition.wait(until:)` takes a wall-clock deadline, so a wall clock stepped back an hour makes
/// a half-second wait last an hour; here a step of the wall clock changes no wait.
/// Thread: any; the mutex guards whatever its users say it guards.
public final class MonotonicCondition: @unchecked Sendable {
    // @unchecked Sendable: a pthread mutex and condition are made to be used from many threads; the
    // pointers are allocated once and never move.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }

    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Wakes one waiter. Thread: any, usually with the lock held.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter. Thread: any, usually with the lock held.
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits for a wake-up, the lock held.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a wake-up until `deadline` (`MonotonicCondition.deadline(after:)`), the lock held;
    /// false once the deadline has passed. Like any condition wait it may return early.
    public func wait(until deadline: timespec) -> Bool {
        var deadline = deadline
        return pthread_cond_timedwait(condition, mutex, &deadline) != ETIMEDOUT
    }

    /// The monotonic time `seconds` from now, for `wait(until:)`.
    public static func deadline(after seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        // At most about 31 years: an unbounded wait must not overflow.
        let nanoseconds = Int64(now.tv_nsec) + Int64(min(max(0, seconds), 1e9) * 1_000_000_000)
        return timespec(tv_sec: now.tv_sec + Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }

    /// Seconds on the monotonic clock since a fixed point: for intervals that a wall clock step must
    /// not change. Thread: any.
    public static func now() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
