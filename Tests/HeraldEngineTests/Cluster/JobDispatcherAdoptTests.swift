import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// Taking over the jobs of a cluster node that stopped (`JobDispatcher.adopt`).
final class JobDispatcherAdoptTests: XCTestCase {
    /// Succeeds at once; retries per `policy`.
    struct QuickRunner: JobRunner {
        let kind: JobKind
        let retryPolicy: RetryPolicy?
        func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject { params }
        func run(_ context: JobContext) throws -> JSONObject { ["attempt": .int(Int64(context.attempt))] }
    }

    private func fixture() -> DispatcherFixture {
        var configuration = testConfiguration()
        configuration.nodeName = "n2"
        return makeFixture(
            configuration,
            runners: [
                QuickRunner(kind: "sturdy", retryPolicy: RetryPolicy(retries: 2, delay: 0.01)), QuickRunner(kind: "once", retryPolicy: nil),
            ])
    }

    private func running(_ id: String, _ kind: JobKind, attempt: Int?) -> JobRecord {
        var record = JobRecord(id: JobID(id), kind: kind, params: [:], createdAt: 1, node: "n1")
        try! record.move(to: .running)
        record.attempt = attempt
        return record
    }

    func testARunningJobWithAttemptsLeftRunsAgainHere() {
        let fixture = fixture()
        fixture.dispatcher.adopt(running("j-a", "sturdy", attempt: 1), from: "n1")
        let ended = fixture.recorder.waitForTerminal(JobID("j-a"))
        XCTAssertEqual(ended?.state, .succeeded)
        XCTAssertEqual(ended?.attempt, 2, "the lost attempt counts")
        XCTAssertEqual(ended?.node, "n2")
        let states = fixture.recorder.jobRecords(of: JobID("j-a"))
        XCTAssertEqual(states.first?.state, .queued)
        XCTAssertEqual(states.first?.error, "node n1 stopped during attempt 1; retrying on n2")
    }

    func testARunningJobWithoutRetriesFailsNamingTheNode() {
        let fixture = fixture()
        fixture.dispatcher.adopt(running("j-b", "once", attempt: nil), from: "n1")
        let ended = fixture.recorder.waitForTerminal(JobID("j-b"))
        XCTAssertEqual(ended?.state, .failed)
        XCTAssertEqual(ended?.error, "node n1 stopped while it ran the job")
        XCTAssertEqual(fixture.recorder.states(of: JobID("j-b")), [.failed], "it never runs here")
    }

    func testAQueuedJobRunsHereAndAnUnknownKindEnds() {
        let fixture = fixture()
        fixture.dispatcher.adopt(JobRecord(id: JobID("j-c"), kind: "once", params: [:], createdAt: 1, node: "n1"), from: "n1")
        XCTAssertEqual(fixture.recorder.waitForTerminal(JobID("j-c"))?.state, .succeeded)
        fixture.dispatcher.adopt(JobRecord(id: JobID("j-d"), kind: "elsewhere", params: [:], createdAt: 1, node: "n1"), from: "n1")
        let ended = fixture.recorder.waitForTerminal(JobID("j-d"))
        XCTAssertEqual(ended?.state, .cancelled)
        XCTAssertEqual(ended?.error, "node n1 stopped, and the node that took its jobs over does not run elsewhere")
    }

    func testAJobItAlreadyHasIsNotTakenTwice() {
        let fixture = fixture()
        let record = running("j-e", "sturdy", attempt: 1)
        fixture.dispatcher.adopt(record, from: "n1")
        XCTAssertEqual(fixture.recorder.waitForTerminal(JobID("j-e"))?.attempt, 2)
        fixture.dispatcher.adopt(record, from: "n1")
        let ended = fixture.dispatcher.job("j-e")
        XCTAssertEqual(ended?.attempt, 2, "a second take-over of the same job changes nothing")
        XCTAssertEqual(fixture.recorder.states(of: JobID("j-e")).filter(\.isTerminal).count, 1)
    }
}
