import HeraldEngine
import HeraldRedis
import HeraldTestSupport
import XCTest

@testable import HeraldCluster

/// What waits for Redis is bounded, and what goes first is what a later event replaces.
final class ClusterPublisherTests: XCTestCase {
    func testTheBacklogShedsProgressThenOutputButNeverStates() throws {
        // Never started: nothing is appended, everything waits.
        let publisher = ClusterPublisher(
            settings: ClusterSettings(address: try RedisAddress("redis://127.0.0.1:1"), node: "n1"), health: ClusterHealth(),
            epochLost: {}, measured: { _, _ in })
        let job = JobID("j-1")
        let record = JobRecord(id: job, kind: "step", params: [:], createdAt: 1)
        publisher.enqueue([SequencedEvent(seq: 1, ts: 1, event: .job(record))])
        func progress(_ range: ClosedRange<Int64>) -> [SequencedEvent] {
            range.map { SequencedEvent(seq: $0, ts: $0, event: .progress(job: job, JobProgress(completed: $0, total: 1 << 40))) }
        }
        publisher.enqueue(progress(2...50_000))
        XCTAssertEqual(publisher.backlog.shed, 0, "under the bounds nothing goes")
        XCTAssertEqual(publisher.backlog.waiting, 50_000)
        // Past 16 MiB of encodings: progress goes, oldest first, down to half the bound.
        publisher.enqueue(progress(50_001...150_000))
        publisher.enqueue([SequencedEvent(seq: 0, ts: 0, event: .job(record))])
        let afterProgress = publisher.backlog
        XCTAssertGreaterThan(afterProgress.shed, 0)
        XCTAssertLessThan(afterProgress.waiting, 150_000 - 50_000)

        // Large log batches past the byte bound: the oldest batches go, the states stay.
        let line = LogLine(stream: .stdout, text: String(repeating: "x", count: 10_000))
        let batches = (0..<2_000).map { SequencedEvent(seq: Int64($0), ts: 0, event: .log(job: job, lines: [line], skipped: 0, first: $0)) }
        publisher.enqueue(batches)
        let afterOutput = publisher.backlog
        XCTAssertGreaterThan(afterOutput.shed, afterProgress.shed, "log batches went too")
        XCTAssertLessThan(afterOutput.waiting, afterProgress.waiting + batches.count)
        XCTAssertGreaterThanOrEqual(afterOutput.waiting, 2, "the two job states are never shed")
    }

    /// A renewal is never near half the lease old while Redis answers: with the shortest lease (2 s)
    /// it renews twice a second, with a long one once a second.
    func testRenewalsComeAtLeastFourTimesALease() throws {
        func interval(lease: Double) throws -> Double {
            let settings = ClusterSettings(address: try RedisAddress("redis://127.0.0.1:1"), node: "n1", nodeTimeoutSeconds: lease)
            return ClusterPublisher(settings: settings, health: ClusterHealth(), epochLost: {}, measured: { _, _ in }).renewalInterval
        }
        XCTAssertEqual(try interval(lease: 2), 0.5)
        XCTAssertEqual(try interval(lease: 10), 1)
    }
}
