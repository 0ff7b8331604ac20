import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// Jobs that wait for jobs of other cluster nodes (`JobDispatcher.noteForeignJobs`).
final class JobDispatcherForeignDependencyTests: XCTestCase {
    private func fixture() -> DispatcherFixture {
        var configuration = testConfiguration()
        configuration.nodeName = "n2"
        return makeFixture(configuration, runners: [JobDispatcherAdoptTests.QuickRunner(kind: "once", retryPolicy: nil)])
    }

    private func start(_ fixture: DispatcherFixture, after: [String]) -> Result<JobRecord, EngineError> {
        fixture.dispatcher.start(StartRequest(kind: "once", after: after))
    }

    func testAStartMayNameAnotherNodesJobOnceItIsToldOfItAndRunsWhenItSucceeds() throws {
        let fixture = fixture()
        XCTAssertEqual(start(fixture, after: ["j-remote"]).error?.code, .badRequest, "a job nobody told it of is unknown")
        fixture.dispatcher.noteForeignJobs([JobID("j-remote"): .running], register: true)
        let waiting = try start(fixture, after: ["j-remote"]).get()
        XCTAssertEqual(waiting.state, .waiting)
        fixture.dispatcher.noteForeignJobs([JobID("j-other"): .succeeded])  // not waited for: ignored
        XCTAssertEqual(start(fixture, after: ["j-other"]).error?.code, .badRequest)
        fixture.dispatcher.noteForeignJobs([JobID("j-remote"): .succeeded])
        XCTAssertEqual(fixture.recorder.waitForTerminal(waiting.id)?.state, .succeeded)
    }

    func testADependencyThatEndsOtherwiseCancelsTheJobThatWaits() throws {
        let fixture = fixture()
        fixture.dispatcher.noteForeignJobs([JobID("j-remote"): .queued], register: true)
        let waiting = try start(fixture, after: ["j-remote"]).get()
        fixture.dispatcher.noteForeignJobs([JobID("j-remote"): .failed])
        let ended = fixture.recorder.waitForTerminal(waiting.id)
        XCTAssertEqual(ended?.state, .cancelled)
        XCTAssertEqual(ended?.error, "dependency j-remote ended failed")
    }
}
