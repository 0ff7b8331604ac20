import HeraldAccess
import Testing

@Suite struct SignInThrottleTests {
    @Test func fiveFailuresLockForThirtySecondsThenDoubleUpToFifteenMinutes() {
        var throttle = SignInThrottle()
        var now: Int64 = 1_000_000
        for _ in 1...4 {
            throttle.recordFailure(user: "ann", address: "10.0.0.1", now: now)
            #expect(throttle.delay(user: "ann", address: "10.0.0.1", now: now) == nil)
        }
        var expected: [Int64] = []
        var wait: Int64 = 30_000
        for _ in 5...12 {
            expected.append(wait)
            wait = min(wait * 2, 900_000)
        }
        var seen: [Int64] = []
        for _ in 5...12 {
            throttle.recordFailure(user: "ann", address: "10.0.0.1", now: now)
            let delay = throttle.delay(user: "ann", address: "10.0.0.1", now: now)
            seen.append(delay.map { $0.components.seconds * 1_000 } ?? 0)
            // The next try comes when the lockout ends.
            now += delay.map { $0.components.seconds * 1_000 } ?? 0
            #expect(throttle.delay(user: "ann", address: "10.0.0.1", now: now) == nil)
        }
        #expect(seen == expected)
        #expect(seen.last == 900_000)
    }

    @Test func eachOfUserAndAddressIsCountedOnItsOwn() {
        var throttle = SignInThrottle()
        // One address guessing many names: the address is locked out, any name from it waits.
        for index in 0..<5 { throttle.recordFailure(user: "user\(index)", address: "10.0.0.9", now: 0) }
        #expect(throttle.delay(user: "someone-new", address: "10.0.0.9", now: 1_000) == .seconds(29))
        #expect(throttle.delay(user: "someone-new", address: "10.0.0.10", now: 1_000) == nil)
        // Many addresses guessing one name: the name is locked out from everywhere.
        for index in 0..<5 { throttle.recordFailure(user: "bob", address: "10.1.0.\(index)", now: 0) }
        #expect(throttle.delay(user: "bob", address: "192.168.1.1", now: 0) == .seconds(30))
    }

    @Test func unknownAndKnownUsersAreThrottledAlike() {
        // The throttle takes names only: the caller records an unknown name's failure as any other.
        var known = SignInThrottle()
        var unknown = SignInThrottle()
        var delays: [(Duration?, Duration?)] = []
        for attempt in 0..<8 {
            known.recordFailure(user: "admin", address: "a", now: Int64(attempt))
            unknown.recordFailure(user: "no-such-user", address: "a", now: Int64(attempt))
            delays.append((known.delay(user: "admin", address: "a", now: 10), unknown.delay(user: "no-such-user", address: "a", now: 10)))
        }
        for (knownDelay, unknownDelay) in delays { #expect(knownDelay == unknownDelay) }
        #expect(delays.last?.0 != nil)
    }

    @Test func successClearsTheUserButNotTheAddress() {
        var throttle = SignInThrottle()
        for _ in 0..<5 { throttle.recordFailure(user: "ann", address: "10.0.0.1", now: 0) }
        throttle.recordSuccess(user: "ann")
        #expect(throttle.delay(user: "ann", address: "10.0.0.2", now: 0) == nil)
        #expect(throttle.delay(user: "ann", address: "10.0.0.1", now: 0) == .seconds(30))
        // The count starts again: four more failures lock nothing.
        for _ in 0..<4 { throttle.recordFailure(user: "ann", address: "10.0.0.2", now: 40_000) }
        #expect(throttle.delay(user: "ann", address: "10.0.0.2", now: 40_000) == nil)
    }

    @Test func aCountIdleLongerThanTheCapStartsAgain() {
        var throttle = SignInThrottle()
        for _ in 0..<5 { throttle.recordFailure(user: "ann", address: "a", now: 0) }
        let later: Int64 = 15 * 60_000 + 1
        throttle.recordFailure(user: "ann", address: "b", now: later)
        #expect(throttle.delay(user: "ann", address: "b", now: later) == nil)
    }

    @Test func memoryIsBoundedAndTheOldestEntryMakesRoom() {
        var throttle = SignInThrottle(maxEntries: 100)
        for index in 0..<1_000 {
            throttle.recordFailure(user: "user\(index)", address: "10.0.\(index / 256).\(index % 256)", now: Int64(index))
        }
        #expect(throttle.remembered.users <= 100)
        #expect(throttle.remembered.addresses <= 100)
        // The newest names are still counted: five more failures of the last name lock it.
        for _ in 0..<4 { throttle.recordFailure(user: "user999", address: "x", now: 2_000) }
        #expect(throttle.delay(user: "user999", address: "y", now: 2_000) != nil)
        // A megabyte-long name is kept cut to a bounded length and still counted.
        let long = String(repeating: "x", count: 1 << 20)
        for _ in 0..<5 { throttle.recordFailure(user: long, address: "z", now: 3_000) }
        #expect(throttle.delay(user: long, address: "w", now: 3_000) == .seconds(30))
    }

    @Test func lockoutTableFollowsThePolicy() {
        let throttle = SignInThrottle(freeFailures: 3, firstLockout: .seconds(10), maxLockout: .seconds(35))
        #expect((1...7).map { throttle.lockout(afterFailures: $0) } == [0, 0, 10_000, 20_000, 35_000, 35_000, 35_000])
        #expect(SignInThrottle().lockout(afterFailures: 1_000) == 900_000)
    }
}
