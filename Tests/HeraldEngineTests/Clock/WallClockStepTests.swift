import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// The wall clock stepped an hour forward and back (NTP, an operator) while the monotonic clock runs
/// on: leases and retry delays are unchanged (they count on the dispatcher's clock), a job's times
/// never go backwards, and the schedules follow the wall clock as docs/schedules.md says. Both clocks
/// are injected: `ManualClock` for the monotonic one, a stepped value for the wall one.
final class WallClockStepTests: XCTestCase {
    private static let hour: Int64 = 3_600_000

    /// A wall clock that stands still until stepped. Thread: any (locked).
    private final class SteppedWallClock: Sendable {
        private let millis: Locked<Int64>
        init(_ start: Int64) { millis = Locked(start) }
        func step(by delta: Int64) { millis.withLock { $0 += delta } }
        func set(_ value: Int64) { millis.withLock { $0 = value } }
        var read: @Sendable () -> Int64 { { [millis] in millis.value } }
    }

    private func workerFixture(kind: CommandKind, lease: Double, clock: ManualClock, wall: SteppedWallClock) -> DispatcherFixture {
        var configuration = testConfiguration()
        configuration.workerLeaseSeconds = lease
        return makeFixture(configuration, runners: [CommandRunner(kind)], clock: clock, wallClock: wall.read)
    }

    func testALeaseRunsOutAfterItsMonotonicLengthWhicheverWayTheWallClockSteps() throws {
        for step in [Self.hour, -Self.hour] {
            let clock = ManualClock()
            let wall = SteppedWallClock(ScheduleTesting.instant("2026-06-01T12:00:00Z") * 1000)
            let fixture = workerFixture(kind: JobDispatcherWorkersTests.encode(), lease: 0.3, clock: clock, wall: wall)
            let silent = attach(fixture, 1, name: "gpu-1")
            let job = try fixture.start(JobKind("encode"), ["n": 1]).get()
            XCTAssertNotNil(silent.assignment(of: job.id))
            wall.step(by: step)
            clock.advance(by: 0.28)
            XCTAssertFalse(dropped(silent), "within its lease, after a step of \(step) ms")
            XCTAssertEqual(fixture.dispatcher.job(job.id.rawValue)?.state, .running)
            clock.advance(by: 0.05)
            let done = try XCTUnwrap(fixture.recorder.waitForTerminal(job.id))
            XCTAssertEqual(done.error, "worker gpu-1 lost: no message for 0.3 s")
            let started = try XCTUnwrap(done.startedAt)
            let finished = try XCTUnwrap(done.finishedAt)
            XCTAssertGreaterThanOrEqual(started, done.createdAt)
            XCTAssertGreaterThanOrEqual(finished, started, "a job never ends before it started, after a step of \(step) ms")
        }
    }

    func testARetryWaitsItsDelayWhicheverWayTheWallClockSteps() throws {
        for step in [Self.hour, -Self.hour] {
            var kind = JobDispatcherWorkersTests.encode(retries: 1)
            kind.retryDelay = 5
            let clock = ManualClock()
            let wall = SteppedWallClock(ScheduleTesting.instant("2026-06-01T12:00:00Z") * 1000)
            let fixture = workerFixture(kind: kind, lease: 30, clock: clock, wall: wall)
            let worker = attach(fixture, 1, name: "gpu-1")
            let job = try fixture.start(JobKind("encode"), ["n": 1]).get()
            XCTAssertEqual(worker.assignment(of: job.id), 1)
            fixture.dispatcher.workerSent(WorkerSession(1), .fail(job: job.id, attempt: 1, error: "disk full", exit: nil, cancelled: false))
            fixture.recorder.waitFor("the retry is queued") { _ in
                fixture.recorder.jobRecords(of: job.id).contains { $0.state == .queued && $0.attempt == 1 }
            }
            let secondAttempt = { worker.all.contains { if case .assign(_, 2, _) = $0 { return true } else { return false } } }
            wall.step(by: step)
            // 5 s, give or take the policy's 10 % jitter.
            clock.advance(by: 4.4)
            XCTAssertFalse(secondAttempt(), "the retry waits its 5 s, after a step of \(step) ms")
            clock.advance(by: 1.2)
            waitUntil("the second attempt's assign", seen: { "\(worker.all)" }) { secondAttempt() }
        }
    }

    // MARK: Schedules

    private func scheduleFixture(_ fields: String, clock: ManualClock, wall: SteppedWallClock) throws -> DispatcherFixture {
        let text = #"{"kinds": {"k": {"command": ["/bin/true"]}}, "schedules": {"s": {"kind": "k", "# + fields + "}}}"
        let contents = try JobsFile.parseContents(Array(text.utf8), file: "jobs.json", searchPath: "/usr/bin:/bin")
        var configuration = testConfiguration()
        configuration.schedules = contents.schedules
        return makeFixture(configuration, runners: contents.kinds.map { CommandRunner($0) }, clock: clock, wallClock: wall.read)
    }

    private func status(_ fixture: DispatcherFixture) throws -> ScheduleStatus {
        try XCTUnwrap(fixture.dispatcher.currentStatistics().schedules.first)
    }

    /// Occurrences handled (fired, or skipped while the last job ran): each occurrence is one of them.
    private func handled(_ fixture: DispatcherFixture) throws -> Int {
        let status = try status(fixture)
        return status.fired + status.skipped
    }

    private func waitForHandled(_ count: Int, _ fixture: DispatcherFixture, line: UInt = #line) {
        waitUntil("\(count) occurrences handled", seen: { "\((try? self.status(fixture)).map { "\($0)" } ?? "none")" }, line: line) {
            (try? handled(fixture)) == count
        }
    }

    func testAScheduleAcrossWallClockStepsFiresNothingTwiceAndCountsWhatAStepForwardSkipped() throws {
        let t = { ScheduleTesting.instant($0) * 1000 }
        let clock = ManualClock()
        let wall = SteppedWallClock(t("2026-06-01T12:00:00Z") + 500)
        let fixture = try scheduleFixture(#""every": "10s", "catchUp": "none""#, clock: clock, wall: wall)
        fixture.dispatcher.startSchedules()
        waitUntil("the scheduler's timer", seen: { "\(clock.scheduledCount) timers" }) { clock.scheduledCount > 0 }
        wall.set(t("2026-06-01T12:00:10Z") + 500)
        clock.advance(by: 1)
        waitForHandled(1, fixture)
        XCTAssertEqual(try status(fixture).last?.at, t("2026-06-01T12:00:10Z"))

        // Back an hour: the occurrences of the hour that repeats were handled already.
        wall.step(by: -Self.hour)
        for _ in 0..<15 {
            wall.step(by: 1000)
            clock.advance(by: 1)
        }
        XCTAssertEqual(try handled(fixture), 1, "nothing fires until the wall clock passes the last occurrence again")
        XCTAssertEqual(try status(fixture).next, t("2026-06-01T12:00:20Z"))
        XCTAssertEqual(try status(fixture).missed, 0)
        wall.set(t("2026-06-01T12:00:20Z") + 500)
        clock.advance(by: 1)
        waitForHandled(2, fixture)
        XCTAssertEqual(try status(fixture).last?.at, t("2026-06-01T12:00:20Z"))

        // Forward an hour: what came due over a minute ago is missed (catchUp decides; here none
        // runs); what came due within the minute fires.
        wall.set(t("2026-06-01T13:00:21Z") + 500)
        clock.advance(by: 1)
        // 12:59:30 … 13:00:20 are within the minute's grace.
        waitForHandled(2 + 6, fixture)
        // 12:00:30 … 12:59:20 were missed: 3,530 s apart, every 10 s.
        XCTAssertEqual(try status(fixture).missed, 3_530 / 10 + 1)
        XCTAssertEqual(try status(fixture).last?.at, t("2026-06-01T13:00:20Z"))
        XCTAssertEqual(try status(fixture).next, t("2026-06-01T13:00:30Z"))
    }

    private func dropped(_ inbox: JobDispatcherWorkersTests.Inbox) -> Bool {
        inbox.all.contains { if case .drop = $0 { return true } else { return false } }
    }

    private func attach(_ fixture: DispatcherFixture, _ session: Int, name: String) -> JobDispatcherWorkersTests.Inbox {
        let inbox = JobDispatcherWorkersTests.Inbox()
        fixture.dispatcher.attachWorker(
            WorkerSession(session), WorkerHello(name: name, kinds: ["encode"], slots: 1, params: nil), directives: inbox.handler)
        addTeardownBlock { fixture.dispatcher.detachWorker(WorkerSession(session)) }
        return inbox
    }
}
