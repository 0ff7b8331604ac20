import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// The runs and what waits on them, alone: where one more job may run, retries' waits, cancels.
final class RunningJobsTests: XCTestCase {
    private struct NoSink: JobEventSink {
        func results(job: JobID, items: [JSONValue]) {}
        func news(job: JobID, headlines: [String]) {}
        func log(job: JobID, lines: [LogLine], skipped: Int, first: Int) {}
        func uncoalescedProgress(job: JobID, _ progress: JobProgress) -> Bool { true }
    }

    private func run(_ id: String, _ kind: JobKind, in folder: URL) -> RunningJobs.Run {
        let environment = JobEnvironment(searchRoot: folder, dataDirectory: folder, newsSource: NewsSource(seed: 1))
        let record = JobRecord(id: JobID(id), kind: kind, params: [:], createdAt: 1)
        let context = JobContext(record: record, environment: environment, progress: ProgressReporter {}, sink: NoSink())
        return RunningJobs.Run(context: context, coalescer: ProgressCoalescer(maxEventsPerSecond: 10), started: 0)
    }

    func testASlotIsAWorkerThatRunsTheKindFirstThenAFreeLocalWorker() {
        let folder = makeTemporaryDirectory().url
        var runs = RunningJobs()
        var pool = WorkerPool()
        XCTAssertNil(runs.slot(for: .sort, limit: 2, localWorkers: 1, runsLocally: false, pool: pool), "nowhere to run it")
        guard case .here = runs.slot(for: .sort, limit: 2, localWorkers: 1, runsLocally: true, pool: pool) else {
            return XCTFail("a free local worker runs a kind that runs here")
        }
        runs.begin(JobID("a"), run("a", .sort, in: folder))
        XCTAssertNil(runs.slot(for: .sort, limit: 2, localWorkers: 1, runsLocally: true, pool: pool), "the one local worker is busy")
        let session = WorkerSession(7)
        pool.attach(session, WorkerHello(name: "w", kinds: ["sort"], slots: 1), now: 0)
        guard case .worker(let picked) = runs.slot(for: .sort, limit: 2, localWorkers: 1, runsLocally: true, pool: pool) else {
            return XCTFail("a worker with a free slot that runs the kind comes first")
        }
        XCTAssertEqual(picked, session)
        XCTAssertNil(runs.slot(for: .sort, limit: 1, localWorkers: 1, runsLocally: true, pool: pool), "the kind's limit holds first")
    }

    func testARetryWaitsUntilItsTimerSaysSoAndKeepsItsLog() {
        let clock = ManualClock()
        var runs = RunningJobs()
        let id = JobID("r")
        let log = LogKeeper(lines: [LogLine(stream: .stdout, text: "first attempt")])
        let timer = clock.schedule(on: DispatchQueue(label: "test"), after: 5, repeating: nil) {}
        runs.waitForRetry(id, due: 5, timer: timer, log: log)
        XCTAssertTrue(runs.isWaitingForRetry(id, now: 1))
        XCTAssertFalse(runs.isWaitingForRetry(id, now: 5))
        XCTAssertTrue(runs.logWaitingForRetry(id) === log)
        runs.retryIsDue(id)
        XCTAssertFalse(runs.isWaitingForRetry(id, now: 4.999), "the timer fired: due whatever the clock reads")
        XCTAssertTrue(runs.endRetry(id) === log)
        XCTAssertNil(runs.endRetry(id), "a retry's wait ends once")
        XCTAssertFalse(runs.isWaitingForRetry(id, now: 0))
    }

    func testAnEndedRunSaysWhetherACancelWasAskedFor() {
        let folder = makeTemporaryDirectory().url
        var runs = RunningJobs()
        runs.begin(JobID("a"), run("a", .sort, in: folder))
        runs.begin(JobID("b"), run("b", .sort, in: folder))
        runs.requestCancel(JobID("b"))
        XCTAssertEqual(runs.end(JobID("a"))?.wasCancelled, false)
        XCTAssertEqual(runs.end(JobID("b"))?.wasCancelled, true)
        XCTAssertNil(runs.end(JobID("b")))
        XCTAssertTrue(runs.isEmpty)
        XCTAssertTrue(runs.cancelRequested.isEmpty, "an ended run's cancel is forgotten")
    }
}
