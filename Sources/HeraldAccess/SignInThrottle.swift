/// Slows password guessing: failed sign-ins are counted per user name and per client address, and
/// after `freeFailures` failures on either the next try must wait: `firstLockout`, doubling with each
/// further failure, at most `maxLockout` (defaults: 5 failures, 30 s, 15 min).
///
/// The throttle never learns whether a user exists: the caller records a failure for an unknown
/// name exactly as for a wrong password, so both are slowed alike and the answers cannot tell them
/// apart. A success clears the user's count but not the address's, so a guesser who also holds one
/// good account cannot reset its address by signing in to it.
///
/// Memory is bounded: at most `maxEntries` names and as many addresses; an entry with no failure for
/// longer than `maxLockout` is forgotten (its lockout is over by then), and when a table is full the
/// entry whose last failure is oldest makes room. Time is the caller's (wall-clock milliseconds), so
/// tests advance it instead of sleeping.
///
/// A value: the hub owns one on its service thread and nothing else touches it.
public struct SignInThrottle: Sendable {
    /// Failures in a row a name or an address may have before it must wait.
    public let freeFailures: Int
    /// The wait after the `freeFailures`-th failure; each further failure doubles it…
    public let firstLockout: Duration
    /// …up to this. A count with no failure for this long starts again.
    public let maxLockout: Duration
    /// Names remembered at most, and as many addresses.
    public let maxEntries: Int

    private var users = Table()
    private var addresses = Table()

    public init(
        freeFailures: Int = 5, firstLockout: Duration = .seconds(30), maxLockout: Duration = .seconds(15 * 60), maxEntries: Int = 10_000
    ) {
        self.freeFailures = max(1, freeFailures)
        self.firstLockout = firstLockout
        self.maxLockout = max(firstLockout, maxLockout)
        self.maxEntries = max(1, maxEntries)
    }

    /// How long this user, from this address, must wait before trying again; nil: may try now.
    /// The longer of the two waits when both the name and the address are locked out.
    public func delay(user: String, address: String, now: Int64) -> Duration? {
        let until = max(users.lockedUntil(Self.key(user)), addresses.lockedUntil(Self.key(address)))
        guard until > now else { return nil }
        return .milliseconds(until - now)
    }

    /// A failed sign-in (a wrong password, an unknown user, a malformed request that named a user).
    public mutating func recordFailure(user: String, address: String, now: Int64) {
        let (free, first, cap) = (freeFailures, firstLockout.wholeMilliseconds, maxLockout.wholeMilliseconds)
        let lockout = { Self.lockout(afterFailures: $0, free: free, first: first, cap: cap) }
        users.fail(Self.key(user), now: now, lockout: lockout, maxEntries: maxEntries, idleAfter: cap)
        addresses.fail(Self.key(address), now: now, lockout: lockout, maxEntries: maxEntries, idleAfter: cap)
    }

    /// A successful sign-in clears the user's count (the address keeps its own).
    public mutating func recordSuccess(user: String) {
        users.entries.removeValue(forKey: Self.key(user))
    }

    /// How many names and addresses are remembered now (for tests and metrics).
    public var remembered: (users: Int, addresses: Int) { (users.entries.count, addresses.entries.count) }

    /// The lockout after the `failures`-th failure in a row, in milliseconds; 0 while below the threshold.
    public func lockout(afterFailures failures: Int) -> Int64 {
        Self.lockout(
            afterFailures: failures, free: freeFailures, first: firstLockout.wholeMilliseconds, cap: maxLockout.wholeMilliseconds)
    }

    private static func lockout(afterFailures failures: Int, free: Int, first: Int64, cap: Int64) -> Int64 {
        guard failures >= free else { return 0 }
        let doublings = failures - free
        // Past 62 doublings the shift would overflow; the cap was reached long before.
        guard doublings < 62, first <= cap >> Int64(doublings) else { return cap }
        return first << Int64(doublings)
    }

    /// Names and addresses longer than this are cut: a megabyte-long user name costs no more memory
    /// than a short one (two long names sharing a prefix share a count, which only slows them more).
    static let maxKeyBytes = 256

    private static func key(_ text: String) -> String {
        text.utf8.count <= maxKeyBytes ? text : String(decoding: text.utf8.prefix(maxKeyBytes), as: UTF8.self)
    }

    private struct Entry: Sendable {
        var failures = 0
        var lockedUntil: Int64 = 0
        var lastFailure: Int64 = 0
    }

    private struct Table: Sendable {
        var entries: [String: Entry] = [:]

        func lockedUntil(_ key: String) -> Int64 { entries[key]?.lockedUntil ?? 0 }

        mutating func fail(_ key: String, now: Int64, lockout: (Int) -> Int64, maxEntries: Int, idleAfter idle: Int64) {
            if entries[key] == nil, entries.count >= maxEntries { makeRoom(now: now, idleAfter: idle) }
            var entry = entries[key] ?? Entry()
            // A count idle for longer than the longest lockout starts again.
            if now - entry.lastFailure > idle { entry.failures = 0 }
            entry.failures += 1
            entry.lastFailure = now
            let wait = lockout(entry.failures)
            if wait > 0 { entry.lockedUntil = max(entry.lockedUntil, now + wait) }
            entries[key] = entry
        }

        /// Forgets idle entries; when none is idle, the one whose last failure is oldest. A full
        /// table is one scan per new key, at most `maxEntries` long, and only under a flood.
        private mutating func makeRoom(now: Int64, idleAfter idle: Int64) {
            let before = entries.count
            entries = entries.filter { now - $0.value.lastFailure <= idle || $0.value.lockedUntil > now }
            guard entries.count == before, let oldest = entries.min(by: { $0.value.lastFailure < $1.value.lastFailure })?.key else {
                return
            }
            entries.removeValue(forKey: oldest)
        }
    }
}
