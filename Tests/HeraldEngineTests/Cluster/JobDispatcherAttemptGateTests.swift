import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// A cluster node's gate on every attempt (`JobDispatcher.gateAttempts`): while its leases may be
/// lapsing it starts none, gated kind or not, taken over or not; and it can stop those it runs.
final class JobDispatcherAttemptGateTests: XCTestCase {
    private func fixture(mayStart: Locked<Bool>, runners: [any JobRunner]) -> DispatcherFixture {
        var configuration = testConfiguration()
        configuration.nodeName = "n2"
        let fixture = makeFixture(configuration, runners: runners)
        fixture.dispatcher.gateAttempts { mayStart.value }
        return fixture
    }

    func testNoAttemptStartsWhileTheGateSaysNoAndTheQueuedOnesStartOnceItSaysYes() throws {
        let mayStart = Locked(false)
        let fixture = fixture(mayStart: mayStart, runners: [JobDispatcherAdoptTests.QuickRunner(kind: "once", retryPolicy: nil)])
        let started = try fixture.dispatcher.start(StartRequest(kind: "once")).get()
        let adopted = JobRecord(id: JobID("j-claimed"), kind: JobKind("once"), params: [:], createdAt: 1)
        fixture.dispatcher.adopt(adopted, from: "the queue")
        _ = fixture.dispatcher.allJobs()  // the dispatcher has pumped both
        XCTAssertEqual(fixture.recorder.states(of: started.id).last, .queued)
        XCTAssertEqual(fixture.dispatcher.allJobs().first { $0.id == adopted.id }?.state, .queued)
        mayStart.withLock { $0 = true }
        fixture.dispatcher.attemptsMayStart()
        XCTAssertEqual(fixture.recorder.waitForTerminal(started.id)?.state, .succeeded)
        XCTAssertEqual(fixture.recorder.waitForTerminal(adopted.id)?.state, .succeeded)
    }

    func testStoppingRunningAttemptsCancelsEachAndSaysWhich() throws {
        let mayStart = Locked(true)
        let gate = Gate()
        let fixture = fixture(
            mayStart: mayStart,
            runners: [
                ScriptedRunner("long") { context in
                    try gate.pass(context)
                    return [:]
                }
            ])
        let job = try fixture.dispatcher.start(StartRequest(kind: "long")).get()
        XCTAssertTrue(fixture.recorder.waitForState(job.id, .running))
        let stopped = Locked<[JobID]>([])
        let done = expectation(description: "stopped")
        fixture.dispatcher.stopRunningAttempts { ids in
            stopped.withLock { $0 = ids }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(stopped.value, [job.id])
        XCTAssertEqual(fixture.recorder.waitForTerminal(job.id)?.state, .cancelled)
    }
}
