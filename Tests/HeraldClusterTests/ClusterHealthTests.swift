import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldCluster

/// A node's connections come back together: one that finds Redis back ends the others' pauses.
final class ClusterHealthTests: XCTestCase {
    func testAPauseEndsWhenAnotherLinkWorksAgain() {
        let health = ClusterHealth()
        health.failed(.tail, "refused")
        health.failed(.publisher, "refused")
        let seen = health.answerCount
        let ended = Locked(false)
        // The publisher's thread, backing off far longer than the test waits.
        let publisher = Thread {
            _ = health.pause(600, unlessAnsweredAfter: seen)
            ended.withLock { $0 = true }
        }
        publisher.start()
        health.ok(.tail)
        XCTAssertTrue(poll(timeout: 30) { ended.value }, "the pause ended when the tail found Redis back")
        XCTAssertFalse(health.isWorking(.publisher), "the publisher still has to connect itself")
    }

    func testOnlyALinkThatHadFailedCountsAsAnAnswer() {
        let health = ClusterHealth()
        let told = Locked<[ClusterHealth.Link]>([])
        health.whenAnswered { link in told.withLock { $0.append(link) } }
        health.ok(.tail)
        health.failed(.commands, "refused")
        health.ok(.commands)
        health.ok(.commands)
        XCTAssertEqual(told.value, [.commands], "a link that worked all along wakes nobody")
        XCTAssertEqual(health.answerCount, 1)
    }

    func testWaitingForEveryLinkLastsWhileOneIsDown() {
        let health = ClusterHealth()
        health.failed(.commands, "refused")
        XCTAssertFalse(health.awaitEveryLink(within: 0.01), "the command connection is still down")
        health.ok(.commands)
        XCTAssertTrue(health.awaitEveryLink(within: 600), "every link works")
    }
}
