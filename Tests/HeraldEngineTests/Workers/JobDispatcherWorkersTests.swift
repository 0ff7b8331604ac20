import Dispatch
import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// The engine's side of remote workers, with in-process sessions standing in for connections:
/// assignment, fencing by attempt, lost leases, cancel, and refused hellos.
final class JobDispatcherWorkersTests: XCTestCase {
    /// What one fake worker connection was told, in order. Thread: any (locked).
    final class Inbox: Sendable {
        private let store = Locked<[WorkerDirective]>([])
        var all: [WorkerDirective] { store.withLock { $0 } }
        var handler: @Sendable (WorkerDirective) -> Void { { [store] directive in store.withLock { $0.append(directive) } } }

        /// Waits for a directive `match` picks out, and returns what it picked.
        func wait<T>(
            _ what: String, timeout: Double = 10, file: StaticString = #filePath, line: UInt = #line, _ match: (WorkerDirective) -> T?
        )
            -> T?
        {
            var found: T?
            waitUntil(what, timeout: timeout, seen: { "\(self.all)" }, file: file, line: line) {
                found = all.lazy.compactMap(match).first
                return found != nil
            }
            return found
        }

        func assignment(of job: JobID, file: StaticString = #filePath, line: UInt = #line) -> Int? {
            wait("an assign of \(job)", file: file, line: line) { directive in
                if case .assign(let record, let attempt, _) = directive, record.id == job { return attempt }
                return nil
            }
        }

        func error(about job: JobID, file: StaticString = #filePath, line: UInt = #line) -> EngineError? {
            wait("an error about \(job)", file: file, line: line) { directive in
                if case .error(let error, job, _) = directive { return error }
                return nil
            }
        }
    }

    static func encode(retries: Int = 0, timeout: Double? = nil) -> CommandKind {
        var kind = CommandKind(name: JobKind("encode"), title: "Encode", command: nil, params: [("n", ParamSchema(type: .integer))])
        kind.retries = retries
        kind.timeout = timeout
        kind.retryDelay = 0.01
        return kind
    }

    private func makeWorkerFixture(
        retries: Int = 0, lease: Double = 30, timeout: Double? = nil, clock: any DispatcherClock = SystemClock()
    ) -> DispatcherFixture {
        var configuration = testConfiguration()
        configuration.workerLeaseSeconds = lease
        return makeFixture(configuration, runners: [CommandRunner(Self.encode(retries: retries, timeout: timeout))], clock: clock)
    }

    private func dropped(_ inbox: Inbox) -> Bool { inbox.all.contains { if case .drop = $0 { return true } else { return false } } }

    private func attach(_ fixture: DispatcherFixture, _ session: Int, name: String, slots: Int = 1, params: [String: JSONValue]? = nil)
        -> Inbox
    {
        let inbox = Inbox()
        fixture.dispatcher.attachWorker(
            WorkerSession(session), WorkerHello(name: name, kinds: ["encode"], slots: slots, params: params), directives: inbox.handler)
        // Before the fixture's shutdown (teardown blocks run last first): a fake worker never answers
        // the cancel a shutdown sends, so its connection "closes" instead, as the server's would.
        addTeardownBlock { fixture.dispatcher.detachWorker(WorkerSession(session)) }
        return inbox
    }

    func testAWorkerOnlyJobWaitsQueuedThenRunsOnTheWorkerThatReportsIt() throws {
        let fixture = makeWorkerFixture()
        let job = try fixture.start(JobKind("encode"), ["n": 3]).get()
        XCTAssertEqual(job.state, .queued, "no worker and no local command: it waits")
        let gpu = attach(fixture, 1, name: "gpu-1")
        XCTAssertEqual(gpu.assignment(of: job.id), 1)
        XCTAssertTrue(gpu.all.first.map { $0 == .accepted(name: "gpu-1", lease: 30) } ?? false, "accepted comes first: \(gpu.all)")
        fixture.recorder.waitForState(job.id, .running)
        XCTAssertEqual(fixture.recorder.jobRecords(of: job.id).last?.worker, "gpu-1")

        let session = WorkerSession(1)
        fixture.dispatcher.workerSent(session, .progress(job: job.id, attempt: 1, JobProgress(completed: 2, total: 3, message: "frame 2")))
        fixture.dispatcher.workerSent(
            session, .log(job: job.id, attempt: 1, lines: [LogLine(stream: .stdout, text: "encoding")], skipped: 0))
        // Lines the worker skipped never reach the server: the next batch is numbered after what it keeps.
        let batch = [LogLine(stream: .stdout, text: "frame 1"), LogLine(stream: .stderr, text: "frame 2")]
        fixture.dispatcher.workerSent(session, .log(job: job.id, attempt: 1, lines: batch, skipped: 50))
        fixture.dispatcher.workerSent(session, .result(job: job.id, attempt: 1, summary: ["frames": 3]))
        let done = try XCTUnwrap(fixture.recorder.waitForTerminal(job.id))
        XCTAssertEqual(done.state, .succeeded)
        XCTAssertEqual(done.summary, ["frames": 3])
        XCTAssertEqual(done.worker, "gpu-1")
        XCTAssertTrue(fixture.recorder.progress(of: job.id).contains { $0.completed == 2 && $0.message == "frame 2" })
        XCTAssertTrue(
            fixture.recorder.events.contains {
                if case .log(job.id, let lines, _, _) = $0.event { return lines.first?.text == "encoding" } else { return false }
            })
        let workers = fixture.recorder.events.compactMap { if case .workers(let infos) = $0.event { return infos } else { return nil } }
        XCTAssertEqual(workers.last?.map(\.busy), [0], "the slot is free again")
        XCTAssertTrue(workers.contains { $0.map(\.busy) == [1] })
        let firsts = fixture.recorder.events.compactMap {
            if case .log(job.id, _, _, let first) = $0.event { return first } else { return nil }
        }
        XCTAssertEqual(firsts, [0, 1], "each log event names the kept log's number of its first line")
        let page = try fixture.dispatcher.page(job: job.id.rawValue, offset: 1, limit: 10).get()
        XCTAssertEqual(page.total, 3, "the log is kept")
        XCTAssertEqual(
            page.values.compactMap { $0["text"]?.stringValue }, ["frame 1", "frame 2"], "line 1 of the page is line 1 of the events")
    }

    /// A result frees the worker's one slot and the next queued job takes it in the same turn: the
    /// list of workers is then what it was, and no second `workers` event says it again.
    func testASlotFreedAndRefilledInOneTurnIsNotAnnouncedTwice() throws {
        let fixture = makeWorkerFixture()
        let gpu = attach(fixture, 1, name: "gpu-1")
        let first = try fixture.start(JobKind("encode"), ["n": 1]).get()
        let second = try fixture.start(JobKind("encode"), ["n": 2]).get()
        XCTAssertEqual(gpu.assignment(of: first.id), 1)
        fixture.dispatcher.workerSent(WorkerSession(1), .result(job: first.id, attempt: 1, summary: [:]))
        XCTAssertEqual(gpu.assignment(of: second.id), 1, "the second job takes the freed slot")
        fixture.dispatcher.workerSent(WorkerSession(1), .result(job: second.id, attempt: 1, summary: [:]))
        XCTAssertTrue(fixture.recorder.waitForState(second.id, .succeeded))

        let lists = fixture.recorder.events.compactMap { recorded -> [Int]? in
            if case .workers(let infos) = recorded.event { return infos.map(\.busy) }
            return nil
        }
        XCTAssertEqual(lists, [[0], [1], [0]], "attached idle, busy through both jobs, idle again")
    }

    func testReportsFromAnyoneButTheHolderOfTheCurrentAttemptAreRefusedAndChangeNothing() throws {
        let fixture = makeWorkerFixture()
        let gpu = attach(fixture, 1, name: "gpu-1")
        let other = attach(fixture, 2, name: "other")
        let job = try fixture.start(JobKind("encode"), ["n": 1]).get()
        // Both are idle: the one attached first takes it.
        let holder = (session: WorkerSession(1), inbox: gpu)
        let stranger = (session: WorkerSession(2), inbox: other)
        XCTAssertEqual(holder.inbox.assignment(of: job.id), 1)

        fixture.dispatcher.workerSent(stranger.session, .result(job: job.id, attempt: 1, summary: ["forged": true]))
        XCTAssertEqual(stranger.inbox.error(about: job.id)?.code, .leaseLost)
        fixture.dispatcher.workerSent(holder.session, .progress(job: job.id, attempt: 2, JobProgress(completed: 1, total: 1)))
        XCTAssertEqual(holder.inbox.error(about: job.id)?.code, .leaseLost, "a wrong attempt")
        fixture.dispatcher.workerSent(holder.session, .result(job: JobID("j-nosuchjob"), attempt: 1, summary: [:]))
        XCTAssertEqual(holder.inbox.error(about: JobID("j-nosuchjob"))?.code, .notFound)

        XCTAssertEqual(fixture.dispatcher.job(job.id.rawValue)?.state, .running)
        XCTAssertEqual(fixture.recorder.progress(of: job.id), [], "no refused report moved the bar")
        XCTAssertEqual(fixture.dispatcher.currentStatistics().staleReports, 2)
    }

    func testALostWorkersAttemptIsRetriedOnAnotherAndItsLateReportsAreRefused() throws {
        let fixture = makeWorkerFixture(retries: 1)
        let first = attach(fixture, 1, name: "gpu-1")
        let job = try fixture.start(JobKind("encode"), ["n": 1]).get()
        XCTAssertEqual(first.assignment(of: job.id), 1)
        fixture.dispatcher.detachWorker(WorkerSession(1))
        fixture.recorder.waitFor("the retry is queued") { _ in
            fixture.recorder.jobRecords(of: job.id).contains { $0.state == .queued && $0.error?.contains("worker gpu-1 lost") == true }
        }
        let second = attach(fixture, 2, name: "gpu-2")
        XCTAssertEqual(second.assignment(of: job.id), 2)
        // The first worker comes back on a new connection and reports its old run.
        let back = attach(fixture, 3, name: "gpu-1")
        fixture.dispatcher.workerSent(WorkerSession(3), .result(job: job.id, attempt: 1, summary: ["stale": true]))
        XCTAssertEqual(back.error(about: job.id)?.code, .leaseLost)
        fixture.dispatcher.workerSent(WorkerSession(2), .result(job: job.id, attempt: 2, summary: ["fresh": true]))
        let done = try XCTUnwrap(fixture.recorder.waitForTerminal(job.id))
        XCTAssertEqual(done.summary, ["fresh": true])
        XCTAssertEqual(done.attempt, 2)
        XCTAssertEqual(done.worker, "gpu-2")
        XCTAssertEqual(fixture.dispatcher.currentStatistics().leasesLost, 1)
    }

    /// Timers that fire a millisecond before the time they were asked for, as a Dispatch timer may
    /// against the clock the dispatcher reads.
    private final class EarlyTimersClock: DispatcherClock {
        let inner = ManualClock()
        func now() -> Double { inner.now() }
        func schedule(
            on queue: DispatchQueue, after delay: Double, repeating interval: Double?, _ handler: @escaping @Sendable () -> Void
        ) -> any ScheduledTimer {
            inner.schedule(on: queue, after: max(0, delay - 0.001), repeating: interval, handler)
        }
    }

    func testARetryLaunchesWhenItsTimerFiresEvenABitBeforeTheClockSaysItIsDue() throws {
        let clock = EarlyTimersClock()
        let fixture = makeWorkerFixture(retries: 1, clock: clock)
        let first = attach(fixture, 1, name: "gpu-1")
        let job = try fixture.start(JobKind("encode"), ["n": 1]).get()
        XCTAssertEqual(first.assignment(of: job.id), 1)
        fixture.dispatcher.detachWorker(WorkerSession(1))
        fixture.recorder.waitFor("the retry is queued") { _ in
            fixture.recorder.jobRecords(of: job.id).contains { $0.state == .queued && $0.attempt == 1 }
        }
        // Attached while the retry waits: its own pump leaves the job for the timer.
        let second = attach(fixture, 2, name: "gpu-2")
        XCTAssertNotNil(second.wait("accepted") { if case .accepted = $0 { return true } else { return nil } })
        XCTAssertFalse(second.all.contains { if case .assign = $0 { return true } else { return false } })
        clock.inner.advance(by: 1)
        XCTAssertEqual(second.assignment(of: job.id), 2, "the timer's word launches it")
    }

    func testASilentWorkerIsDroppedAfterItsLeaseAndItsJobFailsNamingIt() throws {
        let clock = ManualClock()
        let fixture = makeWorkerFixture(lease: 0.3, clock: clock)
        let silent = attach(fixture, 1, name: "gpu-1")
        let job = try fixture.start(JobKind("encode"), ["n": 1]).get()
        XCTAssertNotNil(silent.assignment(of: job.id))
        clock.advance(by: 0.28)
        XCTAssertFalse(dropped(silent), "within its lease")
        XCTAssertEqual(fixture.dispatcher.job(job.id.rawValue)?.state, .running)
        clock.advance(by: 0.05)
        let done = try XCTUnwrap(fixture.recorder.waitForTerminal(job.id))
        XCTAssertEqual(done.state, .failed)
        XCTAssertEqual(done.error, "worker gpu-1 lost: no message for 0.3 s")
        XCTAssertNotNil(silent.wait("a drop") { if case .drop = $0 { return true } else { return nil } })
        XCTAssertEqual(fixture.dispatcher.currentStatistics().workersConnected, 0)
    }

    func testAReportBetweenALeasesEndAndItsConnectionClosingIsAnsweredLeaseLost() throws {
        let clock = ManualClock()
        let fixture = makeWorkerFixture(lease: 0.3, clock: clock)
        let silent = attach(fixture, 1, name: "gpu-1")
        let job = try fixture.start(JobKind("encode"), ["n": 1]).get()
        XCTAssertNotNil(silent.assignment(of: job.id))
        clock.advance(by: 0.35)
        XCTAssertNotNil(silent.wait("a drop") { if case .drop = $0 { return true } else { return nil } })
        // The connection has not closed yet: the worker wakes up and reports on its run.
        fixture.dispatcher.workerSent(
            WorkerSession(1), .progress(job: job.id, attempt: 1, JobProgress(completed: 1, total: 2, message: nil)))
        let refused = silent.error(about: job.id)
        XCTAssertEqual(refused?.code, .leaseLost, "not silence: the worker must learn to kill that run")
        XCTAssertTrue(refused?.message.contains("lease ran out") == true, refused?.message ?? "")
        // Once the connection closed, the session is forgotten: nothing more is said on it.
        fixture.dispatcher.detachWorker(WorkerSession(1))
        let told = fixture.dispatcher.currentStatistics().staleReports
        fixture.dispatcher.workerSent(WorkerSession(1), .beat)
        fixture.dispatcher.workerSent(
            WorkerSession(1), .progress(job: job.id, attempt: 1, JobProgress(completed: 2, total: 2, message: nil)))
        XCTAssertEqual(fixture.dispatcher.currentStatistics().staleReports, told)
    }

    func testBeatsKeepALeaseAlive() throws {
        let clock = ManualClock()
        let fixture = makeWorkerFixture(lease: 0.3, clock: clock)
        let busy = attach(fixture, 1, name: "gpu-1")
        let job = try fixture.start(JobKind("encode"), ["n": 1]).get()
        XCTAssertNotNil(busy.assignment(of: job.id))
        // Three leases' worth of beats at a third of the lease: the job must still be running.
        for _ in 0..<9 {
            fixture.dispatcher.workerSent(WorkerSession(1), .beat)
            clock.advance(by: 0.1)
        }
        XCTAssertEqual(fixture.dispatcher.job(job.id.rawValue)?.state, .running)
        XCTAssertFalse(dropped(busy))
        // Each beat is answered, so the worker knows its lease was renewed (self-fencing, docs/workers.md).
        XCTAssertNotNil(busy.wait("nine beats answered") { _ in busy.all.filter { $0 == .beat }.count == 9 ? true : nil })
        // Then silence: a lease later it is gone.
        clock.advance(by: 0.3)
        XCTAssertTrue(dropped(busy))
    }

    func testCancelReachesTheWorkerAndEndsWhenItSaysSo() throws {
        let fixture = makeWorkerFixture()
        let gpu = attach(fixture, 1, name: "gpu-1")
        let job = try fixture.start(JobKind("encode"), ["n": 1]).get()
        XCTAssertEqual(gpu.assignment(of: job.id), 1)
        _ = fixture.dispatcher.cancel(job.id.rawValue)
        XCTAssertNotNil(gpu.wait("a cancel") { $0 == .cancel(job: job.id, attempt: 1) ? true : nil })
        XCTAssertEqual(fixture.dispatcher.job(job.id.rawValue)?.state, .running, "running until the worker says it ended")
        fixture.dispatcher.workerSent(
            WorkerSession(1), .fail(job: job.id, attempt: 1, error: "cancelled", exit: ["signal": "TERM"], cancelled: true))
        let done = try XCTUnwrap(fixture.recorder.waitForTerminal(job.id))
        XCTAssertEqual(done.state, .cancelled)
        XCTAssertEqual(done.exit, ["signal": "TERM"])
    }

    func testTheServersTimeoutHoldsForARemoteAttempt() throws {
        let clock = ManualClock()
        let fixture = makeWorkerFixture(timeout: 0.2, clock: clock)
        let gpu = attach(fixture, 1, name: "gpu-1")
        let job = try fixture.start(JobKind("encode"), ["n": 1]).get()
        XCTAssertEqual(gpu.assignment(of: job.id), 1)
        clock.advance(by: 0.15)
        XCTAssertFalse(gpu.all.contains { $0 == .cancel(job: job.id, attempt: 1) }, "not before its timeout")
        clock.advance(by: 1)
        XCTAssertNotNil(gpu.wait("a cancel for the timeout") { $0 == .cancel(job: job.id, attempt: 1) ? true : nil })
        fixture.dispatcher.workerSent(WorkerSession(1), .fail(job: job.id, attempt: 1, error: "cancelled", exit: nil, cancelled: true))
        let done = try XCTUnwrap(fixture.recorder.waitForTerminal(job.id))
        XCTAssertEqual(done.state, .failed)
        XCTAssertEqual(done.error, "timed out after 0.2 s")
    }

    func testHellosThatDisagreeWithTheServerAreRefused() {
        let fixture = makeFixture(testConfiguration(), runners: JobCatalog.standardRunners() + [CommandRunner(Self.encode())])
        func refusal(kinds: [String], params: [String: JSONValue]? = nil) -> EngineError? {
            let inbox = Inbox()
            fixture.dispatcher.attachWorker(
                WorkerSession(kinds.count), WorkerHello(name: "w", kinds: kinds, slots: 1, params: params), directives: inbox.handler)
            return inbox.wait("an answer to hello") { directive -> EngineError?? in
                switch directive {
                case .error(let error, nil, nil): return .some(error)
                case .accepted: return .some(nil)
                default: return nil
                }
            } ?? nil
        }
        XCTAssertEqual(refusal(kinds: ["render"])?.code, .unknownKind)
        XCTAssertEqual(refusal(kinds: ["encode", "sort"])?.code, .kindMismatch)
        let mismatch = refusal(kinds: ["encode"], params: ["encode": ["n": ["type": "string"]]])
        XCTAssertEqual(mismatch?.code, .kindMismatch)
        XCTAssertTrue(mismatch?.message.hasPrefix("kind encode:") == true, mismatch?.message ?? "")
        XCTAssertNil(refusal(kinds: ["encode", "encode", "encode"], params: ["encode": ["n": ["type": "integer"]]]))
    }
}
