import Foundation
import HeraldBench
import HeraldEngine
import HeraldTestSupport
import XCTest

final class TickerRunnerTests: XCTestCase {
    func testEventsArePacedAtTheRate() throws {
        let fixture = makeFixture(runnerConfiguration(), runners: [TickerRunner()])
        let started = Date()
        let job = try fixture.run(.ticker, ["rate": 100, "duration": 0.3])
        // 30 are due; a thread that wakes up more than 100 ms late (a loaded machine) may drop the last few.
        let events = try XCTUnwrap(job.summary?["events"]?.intValue)
        XCTAssertTrue((27...30).contains(events), "\(events) events")
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.28, "faster than the rate")
        let progress = fixture.recorder.progress(of: job.id)
        XCTAssertEqual(progress.map(\.completed), Array(1...events))
        XCTAssertTrue(progress.allSatisfy { $0.total == 30 })
    }

    func testRateZeroRunsFlatOutUntilTheDuration() throws {
        let fixture = makeFixture(runnerConfiguration(), runners: [TickerRunner()])
        let job = try fixture.run(.ticker, ["rate": 0, "duration": 0.05])
        let events = try XCTUnwrap(job.summary?["events"]?.intValue)
        XCTAssertGreaterThan(events, 0)
        XCTAssertTrue(fixture.recorder.progress(of: job.id).allSatisfy { $0.total == 0 })
    }

    func testCountStopsAFlatOutTickerAfterThatManyEvents() throws {
        let fixture = makeFixture(runnerConfiguration(), runners: [TickerRunner()])
        let job = try fixture.run(.ticker, ["rate": 0, "duration": 60, "count": 25])
        XCTAssertEqual(job.summary?["events"]?.intValue, 25)
        let progress = fixture.recorder.progress(of: job.id)
        XCTAssertEqual(progress.map(\.completed), Array(1...25))
        XCTAssertTrue(progress.allSatisfy { $0.total == 25 })
    }

    func testCountBelowRateTimesDurationEndsThePacedTickerEarly() throws {
        let fixture = makeFixture(runnerConfiguration(), runners: [TickerRunner()])
        let job = try fixture.run(.ticker, ["rate": 100, "duration": 60, "count": 5])
        XCTAssertEqual(job.summary?["events"]?.intValue, 5)
        XCTAssertTrue(fixture.recorder.progress(of: job.id).allSatisfy { $0.total == 5 })
    }

    func testCancelStopsTheTicker() throws {
        let fixture = makeFixture(runnerConfiguration(), runners: [TickerRunner()])
        let job = try fixture.start(.ticker, ["rate": 50, "duration": 60]).get()
        XCTAssertTrue(fixture.recorder.waitFor("the ticker reports progress") { _ in !fixture.recorder.progress(of: job.id).isEmpty })
        _ = try fixture.dispatcher.cancel(job.id.rawValue).get()
        XCTAssertEqual(fixture.recorder.waitForTerminal(job.id, timeout: 5)?.state, .cancelled)
    }

    func testParamsAreValidated() throws {
        let fixture = makeFixture(runnerConfiguration(), runners: [TickerRunner()])
        XCTAssertEqual(try fixture.start(.ticker, ["duration": 0.01]).get().params, ["rate": 20.0, "duration": 0.01])
        XCTAssertEqual(
            try fixture.start(.ticker, ["duration": 0.01, "count": 3.0]).get().params, ["rate": 20.0, "duration": 0.01, "count": 3])
        for (params, field) in [
            (["rate": -1], "rate"), (["rate": "fast"], "rate"), (["duration": 0], "duration"),
            (["duration": 3601], "duration"), (["count": 0], "count"), (["count": 1.5], "count"),
            (["count": 1_000_000_001], "count"),
        ] as [(JSONObject, String)] {
            XCTAssertEqual(fixture.refusal(.ticker, params)?.message.hasPrefix("\(field): "), true, "\(params)")
        }
    }

    func testCatalogAndTheBenchKindOfferEveryKind() {
        XCTAssertFalse(JobCatalog.standardRunners().contains { $0.kind == .ticker }, "the ticker is not a standard kind")
        XCTAssertEqual(Set((JobCatalog.standardRunners() + [TickerRunner()]).map(\.kind)), Set(JobKind.builtIn))
    }

    func testTickerWaitsWhileDeliveryIsBehind() throws {
        // (open, times asked): the ticker asks before every event it would emit.
        let gate = Protected((open: false, asked: 0))
        let ticker = TickerRunner(mayEmit: {
            gate.withLock { state in
                state.asked += 1
                return state.open
            }
        })
        let fixture = makeFixture(runnerConfiguration(), runners: [ticker])
        let job = try fixture.start(.ticker, ["rate": 0, "duration": 60]).get()
        // Closed: the ticker keeps asking (a condition to wait for) and emits nothing meanwhile.
        XCTAssertTrue(fixture.recorder.waitFor("the ticker asked 50 times") { _ in gate.withLock { $0.asked } >= 50 })
        XCTAssertTrue(fixture.recorder.progress(of: job.id).isEmpty, "nothing is emitted while delivery is behind")
        gate.withLock { $0.open = true }
        XCTAssertTrue(
            fixture.recorder.waitFor("the ticker emits once delivery catches up") { _ in !fixture.recorder.progress(of: job.id).isEmpty })
        _ = try fixture.dispatcher.cancel(job.id.rawValue).get()
        XCTAssertEqual(fixture.recorder.waitForTerminal(job.id, timeout: 5)?.state, .cancelled)
    }
}
