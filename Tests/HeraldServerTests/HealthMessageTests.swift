import HeraldEngine
import XCTest

@testable import HeraldServer

/// A node's health on the stream: asked once a sweep, sent to every viewer when it changes, and after
/// each snapshot while degraded; never to a worker.
final class HealthMessageTests: XCTestCase {
    private func health(_ harness: inout HubHarness, degraded: String?) {
        harness.hub.sweepKeepalive(now: harness.now, into: &harness.actions)
        let asked = harness.take().contains { if case .ask(.statistics, .health) = $0 { return true } else { return false } }
        XCTAssertTrue(asked, "the sweep asks the engine for its health")
        var statistics = EngineStatistics()
        statistics.degraded = degraded
        harness.deliver([.answer(.health, .statistics(statistics))])
    }

    func testViewersAreToldWhenTheNodeDegradesAndRecovers() {
        var harness = HubHarness()
        harness.connectLive(1)
        _ = harness.written(1)
        health(&harness, degraded: nil)
        XCTAssertTrue(harness.written(1).messages.isEmpty, "well, as it was: nothing to say")
        health(&harness, degraded: "Redis at 10.0.0.1:6379 does not answer")
        XCTAssertEqual(
            harness.written(1).messages.last, ["type": "health", "status": "degraded", "reason": "Redis at 10.0.0.1:6379 does not answer"])
        harness.connect(2)
        harness.deliver([
            .answer(.snapshot(generation: 0), .snapshot(Snapshot(epoch: "e1", seq: 0, jobs: [], news: NewsFeed(), limits: [:])))
        ])
        let second = harness.written(2).messages
        XCTAssertEqual(second.map { $0["type"]?.stringValue }, ["snapshot", "health"], "a snapshot while degraded is followed by the word")
        health(&harness, degraded: nil)
        XCTAssertEqual(harness.written(1).messages.last, ["type": "health", "status": "ok"])
        XCTAssertNil(harness.written(1).messages.first?["seq"], "not part of the shared stream")
    }
}
