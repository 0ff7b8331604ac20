import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// Dependencies alone: which jobs are queued or cancelled, in which order, with which reason.
final class DependencyResolverTests: XCTestCase {
    private func job(_ id: String, _ state: JobState, after: [String] = []) -> JobRecord {
        JobRecord(id: JobID(id), kind: .sort, params: [:], after: after.map(JobID.init), state: state, createdAt: 1)
    }

    func testAFailureRunsDownAChainAndSuccessQueues() {
        let jobs = [
            job("a", .failed), job("b", .waiting, after: ["a"]), job("c", .waiting, after: ["b"]),
            job("d", .succeeded), job("e", .waiting, after: ["d"]), job("f", .waiting, after: ["d", "x"]),
        ]
        XCTAssertEqual(
            DependencyResolver.steps(for: jobs),
            [
                .cancel(JobID("b"), reason: "dependency a ended failed"), .cancel(JobID("c"), reason: "dependency b ended cancelled"),
                .queue(JobID("e")), .cancel(JobID("f"), reason: "dependency x is no longer known"),
            ])
    }

    func testAnotherNodesJobsCountByTheirStatesAndUnfinishedOnesWait() {
        let jobs = [job("b", .waiting, after: ["remote"]), job("c", .waiting, after: ["remote-2"])]
        XCTAssertEqual(
            DependencyResolver.steps(for: jobs, foreign: [JobID("remote"): .running, JobID("remote-2"): .succeeded]), [.queue(JobID("c"))])
        XCTAssertEqual(
            DependencyResolver.steps(for: jobs, foreign: [JobID("remote"): .cancelled, JobID("remote-2"): .running]),
            [.cancel(JobID("b"), reason: "dependency remote ended cancelled")])
        XCTAssertEqual(
            DependencyResolver.steps(for: [job("q", .queued, after: ["gone"])]),
            [.cancel(JobID("q"), reason: "dependency gone is no longer known")], "a queued job whose dependency vanished")
    }
}
