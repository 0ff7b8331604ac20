import Foundation
import HeraldRedis

/// One of a node's Redis connections (the publisher's, the tail's, the command queue's), made again
/// when it broke, and the node's health kept in step: a connection that cannot be made marks its link
/// failed (the node is degraded), one that can marks it working.
///
/// While Redis is away each owner tries again at least once a second (the backoff's cap), and sooner
/// when another of the node's connections finds Redis back (`ClusterHealth.pause`): all three come back
/// together, within a second of Redis answering.
///
/// Not Sendable: owned by one thread or serial queue, like the connection it holds.
final class ClusterLink {
    private let settings: ClusterSettings
    private let health: ClusterHealth
    private let link: ClusterHealth.Link
    private let commandTimeout: Double
    private var current: RedisConnection?
    private var backoff = RedisBackoff(initial: 0.05, maximum: 1)
    /// `health.answerCount` when this link last looked: its pause ends when another link moves it.
    private var answersSeen = 0

    /// `commandTimeout` must be above any `BLOCK` time used on the connection (a shorter socket
    /// timeout kills the connection in the middle of the block).
    init(_ link: ClusterHealth.Link, settings: ClusterSettings, health: ClusterHealth, commandTimeout: Double = 3) {
        self.link = link
        self.settings = settings
        self.health = health
        self.commandTimeout = commandTimeout
    }

    /// The connection, made now when there is none (or it broke): `fresh` says so, since a new one
    /// may find a Redis that lost its data meanwhile. Throws when Redis cannot be reached.
    func connection() throws(RedisError) -> (connection: RedisConnection, fresh: Bool) {
        if let current, !current.isBroken { return (current, false) }
        close()
        // An answer found by another link while this one connects in vain ends its next pause.
        let before = health.answerCount
        do throws(RedisError) {
            let made = try RedisConnection(address: settings.address, connectTimeout: 1, commandTimeout: commandTimeout)
            current = made
            backoff.reset()
            health.ok(link)
            // Its own answer is no reason to cut its next pause short.
            answersSeen = health.answerCount
            return (made, true)
        } catch {
            answersSeen = before
            health.failed(link, error.description)
            throw error
        }
    }

    /// The same for a thread of its own: nil after a backoff pause (50 ms doubling to 1 s, less when
    /// another link finds Redis back) when Redis cannot be reached, so its loop tries again.
    func connectionOrPause() -> (connection: RedisConnection, fresh: Bool)? {
        do { return try connection() } catch {
            pause()
            return nil
        }
    }

    /// A call on the connection failed: the node is degraded until a call works again.
    func failed(_ error: any Error) {
        health.failed(link, String(describing: error))
    }

    /// A call worked.
    func worked() { health.ok(link) }

    /// Waits the next backoff delay (a loop that found Redis unusable), or until another link finds
    /// Redis back. Thread: the owner's.
    func pause() {
        let delay = backoff.nextDelay()
        // The first step is waited in full: links that connect but then fail at once (a Redis at its
        // `maxclients`) would otherwise wake each other with no pause at all.
        let floor = min(delay, backoff.initial)
        Thread.sleep(forTimeInterval: floor)
        answersSeen = health.pause(delay - floor, unlessAnsweredAfter: answersSeen)
    }

    func close() {
        current?.close()
        current = nil
    }
}
