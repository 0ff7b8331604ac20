import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// A cluster node's gate on launches (`JobDispatcher.gateLaunches`): a start with dependencies of a
/// kind whose `concurrency` holds across the cluster runs only once the gate lets it.
final class JobDispatcherLaunchGateTests: XCTestCase {
    /// The gate's questions, each answered when the test says.
    private final class Gate: Sendable {
        let asked = Locked<[(JobID, @Sendable (Bool) -> Void)]>([])

        var launchGate: LaunchGate { { [asked] record, answer in asked.withLock { $0.append((record.id, answer)) } } }

        /// Answers the oldest question not answered yet.
        func answerNext(_ granted: Bool) {
            let next = asked.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            XCTAssertNotNil(next, "the gate was asked")
            next?.1(granted)
        }
    }

    private func fixture(_ gate: Gate) -> DispatcherFixture {
        var configuration = testConfiguration()
        configuration.nodeName = "n2"
        let fixture = makeFixture(
            configuration,
            runners: [
                JobDispatcherAdoptTests.QuickRunner(kind: "pair", retryPolicy: nil),
                JobDispatcherAdoptTests.QuickRunner(kind: "once", retryPolicy: nil),
            ])
        fixture.dispatcher.gateLaunches(of: [JobKind("pair")], through: gate.launchGate)
        return fixture
    }

    func testARefusedJobWaitsQueuedUntilTheGateIsReopenedAndLetsIt() throws {
        let gate = Gate()
        let fixture = fixture(gate)
        fixture.dispatcher.noteForeignJobs([JobID("j-remote"): .running], register: true)
        let job = try fixture.dispatcher.start(StartRequest(kind: "pair", after: ["j-remote"])).get()
        XCTAssertTrue(gate.asked.value.isEmpty, "no question while its dependency runs")
        fixture.dispatcher.noteForeignJobs([JobID("j-remote"): .succeeded])
        waitUntil("the gate is asked", seen: { "\(gate.asked.value.count) questions" }) { gate.asked.value.count == 1 }
        gate.answerNext(false)
        fixture.dispatcher.reopenGates(for: [JobKind("once")])  // another kind: no new question
        _ = fixture.dispatcher.allJobs()  // the dispatcher has taken the answer and the reopening
        XCTAssertEqual(fixture.recorder.states(of: job.id).last, .queued, "refused: it does not run")
        XCTAssertTrue(gate.asked.value.isEmpty)
        fixture.dispatcher.reopenGates(for: [JobKind("pair")])
        waitUntil("the gate is asked again", seen: { "\(gate.asked.value.count) questions" }) { gate.asked.value.count == 1 }
        gate.answerNext(true)
        XCTAssertEqual(fixture.recorder.waitForTerminal(job.id)?.state, .succeeded)
        XCTAssertEqual(fixture.recorder.states(of: job.id).filter { $0 == .running }.count, 1)
    }

    func testOtherKindsAndAdoptedJobsRunWithoutAsking() throws {
        let gate = Gate()
        let fixture = fixture(gate)
        let other = try fixture.dispatcher.start(StartRequest(kind: "once")).get()
        XCTAssertEqual(fixture.recorder.waitForTerminal(other.id)?.state, .succeeded)
        // Taken from the cluster's queue: Redis gave it its place when it was claimed.
        let claimed = JobRecord(id: JobID("j-claimed"), kind: JobKind("pair"), params: [:], createdAt: 1)
        fixture.dispatcher.adopt(claimed, from: "the queue")
        XCTAssertEqual(fixture.recorder.waitForTerminal(claimed.id)?.state, .succeeded)
        XCTAssertTrue(gate.asked.value.isEmpty)
    }
}
