import Foundation
import HeraldEngine
import Synchronization
import HeraldTestSupport
import XCTest

final class JobDispatcherTests: XCTestCase {
    private let gates = GateBook()
    private let runLog = RunLog()

    /// A dispatcher whose search, sort and fetch runners all behave by tag (see `ScriptedRunner.tagged`).
    private func makeTaggedFixture(_ configuration: EngineConfiguration = testConfiguration()) -> DispatcherFixture {
        makeFixture(
            configuration,
            runners: [JobKind.search, .sort, .fetch].map { ScriptedRunner.tagged($0, gates: gates, log: runLog) })
    }

    private func assertConsecutive(
        _ events: [SequencedEvent], after start: Int64, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(events.map(\.seq), Array((start + 1)..<(start + 1 + Int64(events.count))), file: file, line: line)
    }

    private func index(
        of state: JobState, _ id: JobID, in events: [SequencedEvent], file: StaticString = #filePath, line: UInt = #line
    ) throws -> Int {
        try XCTUnwrap(
            events.firstIndex { $0.jobRecord?.id == id && $0.jobRecord?.state == state }, "\(id) never \(state)",
            file: file, line: line)
    }

    // MARK: Start and run

    func testJobRunsQueuedRunningSucceededWithIncreasingSeq() throws {
        let fixture = makeTaggedFixture()
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let started = try fixture.startJob(.sort, tag: "quick")
        XCTAssertEqual(started.kind, .sort)
        XCTAssertEqual(started.params["tag"], "quick")
        XCTAssertTrue(JobID.isWellFormed(started.id.rawValue))

        let final = try XCTUnwrap(recorder.waitForTerminal(started.id))
        XCTAssertEqual(recorder.states(of: started.id), [.queued, .running, .succeeded])
        XCTAssertEqual(final.summary, ["tag": "quick"])
        XCTAssertNil(final.error)
        let startedAt = try XCTUnwrap(final.startedAt)
        let finishedAt = try XCTUnwrap(final.finishedAt)
        XCTAssertLessThanOrEqual(final.createdAt, startedAt)
        XCTAssertLessThanOrEqual(startedAt, finishedAt)
        assertConsecutive(recorder.events, after: recorder.snapshot.seq)
        XCTAssertEqual(dispatcher.job(started.id.rawValue), final)
        XCTAssertEqual(dispatcher.allJobs().map(\.id), [started.id])
        XCTAssertEqual(runLog.all, ["quick"])

        let statistics = dispatcher.currentStatistics()
        XCTAssertEqual(statistics.finished[EngineStatistics.finishedKey(kind: .sort, state: .succeeded)], 1)
        XCTAssertEqual(statistics.durationCount, 1)
        XCTAssertEqual(statistics.seq, recorder.events.last?.seq)
    }

    func testFailingJobEndsFailedWithItsMessage() throws {
        let fixture = makeTaggedFixture()
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let job = try fixture.startJob(.fetch, tag: "fail-now")
        let final = try XCTUnwrap(recorder.waitForTerminal(job.id))
        XCTAssertEqual(recorder.states(of: job.id), [.queued, .running, .failed])
        XCTAssertEqual(final.error, "fail-now broke")
        XCTAssertNil(final.summary)
        XCTAssertEqual(dispatcher.currentStatistics().finished["fetch/failed"], 1)
    }

    func testSnapshotListsJobsInCreationOrder() throws {
        let fixture = makeTaggedFixture(testConfiguration(workers: 1))
        let dispatcher = fixture.dispatcher
        let first = try fixture.startJob(.sort, tag: "wait-1")
        let second = try fixture.startJob(.fetch, tag: "2")
        let third = try fixture.startJob(.search, tag: "3")
        let snapshot = dispatcher.snapshot()
        XCTAssertEqual(snapshot.jobs.map(\.id), [first.id, second.id, third.id])
        XCTAssertEqual(snapshot.epoch, dispatcher.epoch)
        XCTAssertEqual(snapshot.epoch.count, 16)
        XCTAssertEqual(snapshot.limits["workers"], .int(1))
        XCTAssertEqual(snapshot.seq, dispatcher.currentStatistics().seq)
    }

    // MARK: Cancel

    func testCancelQueuedJobNeverRunsIt() throws {
        let fixture = makeTaggedFixture(testConfiguration(workers: 1))
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let blocker = try fixture.startJob(.sort, tag: "wait-A")
        XCTAssertTrue(recorder.waitForState(blocker.id, .running))
        let queued = try fixture.startJob(.fetch, tag: "B")
        XCTAssertEqual(dispatcher.job(queued.id.rawValue)?.state, .queued, "one worker, and it is busy")

        let cancelled = try XCTUnwrap(dispatcher.cancel(queued.id.rawValue).value)
        XCTAssertEqual(cancelled.state, .cancelled)
        XCTAssertEqual(cancelled.error, "cancelled by request")
        XCTAssertEqual(recorder.states(of: queued.id), [.queued, .cancelled])

        gates.open("wait-A")
        XCTAssertEqual(recorder.waitForTerminal(blocker.id)?.state, .succeeded)
        // The worker is free again: a later job runs, and the cancelled one still has not.
        let later = try fixture.startJob(.fetch, tag: "C")
        XCTAssertEqual(recorder.waitForTerminal(later.id)?.state, .succeeded)
        XCTAssertEqual(runLog.all, ["wait-A", "C"])
        XCTAssertEqual(recorder.states(of: queued.id), [.queued, .cancelled])
    }

    func testCancelWaitingJob() throws {
        let fixture = makeTaggedFixture()
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let first = try fixture.startJob(.sort, tag: "wait-A")
        let dependent = try fixture.startJob(.fetch, tag: "B", after: [first.id])
        XCTAssertEqual(dispatcher.job(dependent.id.rawValue)?.state, .waiting)

        XCTAssertEqual(dispatcher.cancel(dependent.id.rawValue).value?.state, .cancelled)
        gates.open("wait-A")
        XCTAssertEqual(recorder.waitForTerminal(first.id)?.state, .succeeded)
        XCTAssertEqual(recorder.states(of: dependent.id), [.queued, .waiting, .cancelled])
        XCTAssertFalse(runLog.all.contains("B"))
    }

    func testCancelRunningJobEndsCancelledWithNoLaterProgress() throws {
        let fixture = makeTaggedFixture(testConfiguration(progressEventsPerSecond: 200))
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let job = try fixture.startJob(.search, tag: "spin")
        XCTAssertTrue(
            recorder.waitFor("three progress events") { _ in recorder.progress(of: job.id).count >= 3 }, "a spinning job reports progress")

        let answer = try XCTUnwrap(dispatcher.cancel(job.id.rawValue).value)
        XCTAssertEqual(answer.state, .running, "a running job ends once it notices the cancel")
        let final = try XCTUnwrap(recorder.waitForTerminal(job.id))
        XCTAssertEqual(final.state, .cancelled)
        XCTAssertEqual(final.error, "cancelled by request")
        XCTAssertEqual(recorder.states(of: job.id), [.queued, .running, .cancelled])

        // Let the progress timer tick a few more times, then look for strays after the final event.
        let probe = try fixture.startJob(.fetch, tag: "probe")
        XCTAssertNotNil(recorder.waitForTerminal(probe.id))
        let events = recorder.events
        let terminal = try index(of: .cancelled, job.id, in: events)
        XCTAssertFalse(
            events[(terminal + 1)...].contains { $0.progressJob == job.id }, "no progress event follows the final job event")
        XCTAssertEqual(dispatcher.cancel(job.id.rawValue).error?.code, .notCancellable)
    }

    func testRunningJobThatReturnsAfterACancelStillEndsCancelled() throws {
        let fixture = makeTaggedFixture()
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let job = try fixture.startJob(.sort, tag: "ignore")
        XCTAssertTrue(recorder.waitForState(job.id, .running))
        _ = dispatcher.cancel(job.id.rawValue)
        let final = try XCTUnwrap(recorder.waitForTerminal(job.id))
        XCTAssertEqual(final.state, .cancelled, "a cancelled job never ends succeeded")
        XCTAssertNil(final.summary)
        XCTAssertFalse(recorder.states(of: job.id).contains(.succeeded))
    }

    func testCancelUnknownOrFinishedJob() throws {
        let fixture = makeTaggedFixture()
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        XCTAssertEqual(dispatcher.cancel("j-nothere").error?.code, .notFound)
        let job = try fixture.startJob(.fetch, tag: "done")
        XCTAssertNotNil(recorder.waitForTerminal(job.id))
        let refusal = try XCTUnwrap(dispatcher.cancel(job.id.rawValue).error)
        XCTAssertEqual(refusal.code, .notCancellable)
        XCTAssertTrue(refusal.message.contains("succeeded"), refusal.message)
    }

    // MARK: Dependencies

    func testSuccessChainRunsInOrder() throws {
        let fixture = makeTaggedFixture()
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let first = try fixture.startJob(.sort, tag: "wait-A")
        let second = try fixture.startJob(.fetch, tag: "B", after: [first.id])
        let third = try fixture.startJob(.search, tag: "C", after: [second.id])
        XCTAssertEqual(second.after, [first.id])
        XCTAssertEqual(dispatcher.job(second.id.rawValue)?.state, .waiting)
        XCTAssertEqual(dispatcher.job(third.id.rawValue)?.state, .waiting)

        gates.open("wait-A")
        XCTAssertEqual(recorder.waitForTerminal(third.id)?.state, .succeeded)
        XCTAssertEqual(runLog.all, ["wait-A", "B", "C"])
        XCTAssertEqual(recorder.states(of: second.id), [.queued, .waiting, .queued, .running, .succeeded])
        let events = recorder.events
        XCTAssertLessThan(try index(of: .succeeded, first.id, in: events), try index(of: .running, second.id, in: events))
        XCTAssertLessThan(try index(of: .succeeded, second.id, in: events), try index(of: .running, third.id, in: events))
    }

    func testFailedDependencyCancelsDependentsNamingIt() throws {
        let fixture = makeTaggedFixture()
        let recorder = fixture.recorder
        let first = try fixture.startJob(.sort, tag: "wait-fail-A")
        let second = try fixture.startJob(.fetch, tag: "B", after: [first.id])
        let third = try fixture.startJob(.search, tag: "C", after: [second.id])
        gates.open("wait-fail-A")

        let secondFinal = try XCTUnwrap(recorder.waitForTerminal(second.id))
        let thirdFinal = try XCTUnwrap(recorder.waitForTerminal(third.id))
        XCTAssertEqual(recorder.terminal(of: first.id)?.state, .failed)
        XCTAssertEqual(secondFinal.state, .cancelled)
        XCTAssertEqual(secondFinal.error, "dependency \(first.id) ended failed")
        XCTAssertEqual(thirdFinal.state, .cancelled)
        XCTAssertEqual(thirdFinal.error, "dependency \(second.id) ended cancelled")
        XCTAssertEqual(runLog.all, ["wait-fail-A"], "no dependent ran")
    }

    func testCancelledDependencyCancelsDependent() throws {
        let fixture = makeTaggedFixture()
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let first = try fixture.startJob(.sort, tag: "wait-A")
        XCTAssertTrue(recorder.waitForState(first.id, .running))
        let second = try fixture.startJob(.fetch, tag: "B", after: [first.id])
        _ = dispatcher.cancel(first.id.rawValue)
        let final = try XCTUnwrap(recorder.waitForTerminal(second.id))
        XCTAssertEqual(final.state, .cancelled)
        XCTAssertEqual(final.error, "dependency \(first.id) ended cancelled")
        XCTAssertEqual(recorder.terminal(of: first.id)?.state, .cancelled)
        XCTAssertFalse(runLog.all.contains("B"))
    }

    func testDependencyThatAlreadyEnded() throws {
        let fixture = makeTaggedFixture()
        let recorder = fixture.recorder
        let good = try fixture.startJob(.sort, tag: "good")
        let bad = try fixture.startJob(.sort, tag: "fail-bad")
        XCTAssertNotNil(recorder.waitForTerminal(good.id))
        XCTAssertNotNil(recorder.waitForTerminal(bad.id))

        let afterGood = try fixture.startJob(.fetch, tag: "after-good", after: [good.id, good.id])
        XCTAssertEqual(afterGood.after, [good.id], "a repeated dependency counts once")
        XCTAssertEqual(recorder.waitForTerminal(afterGood.id)?.state, .succeeded)

        let afterBad = try fixture.startJob(.fetch, tag: "after-bad", after: [good.id, bad.id])
        XCTAssertEqual(afterBad.state, .cancelled, "refused at once: its dependency already failed")
        XCTAssertEqual(afterBad.error, "dependency \(bad.id) ended failed")
        XCTAssertFalse(runLog.all.contains("after-bad"))
    }

    /// A finished job that a waiting job still depends on is not forgotten (`JobTable.forgetOld` keeps
    /// jobs that unfinished jobs name in `after`): were it, the dependent would be cancelled although
    /// every one of its dependencies succeeded.
    func testDependencyForgottenAfterSucceedingStillCountsAsSucceeded() throws {
        let fixture = makeTaggedFixture(testConfiguration(retainedFinishedJobs: 1))
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let first = try fixture.startJob(.sort, tag: "first")
        XCTAssertEqual(recorder.waitForTerminal(first.id)?.state, .succeeded)
        let slow = try fixture.startJob(.fetch, tag: "wait-slow")
        let dependent = try fixture.startJob(.search, tag: "dependent", after: [first.id, slow.id])
        XCTAssertEqual(dispatcher.job(dependent.id.rawValue)?.state, .waiting)
        // Another job finishes: with room for one finished job, the oldest finished one is dropped.
        let other = try fixture.startJob(.sort, tag: "other")
        XCTAssertEqual(recorder.waitForTerminal(other.id)?.state, .succeeded)

        gates.open("wait-slow")
        let final = try XCTUnwrap(recorder.waitForTerminal(dependent.id))
        XCTAssertEqual(final.state, .succeeded, "both dependencies succeeded, yet: \(final.error ?? "no error")")
        XCTAssertTrue(runLog.all.contains("dependent"))
    }

    func testUnknownDependencyIsABadRequest() throws {
        let fixture = makeTaggedFixture()
        let dispatcher = fixture.dispatcher
        let before = dispatcher.snapshot()
        let refusal = try XCTUnwrap(dispatcher.start(StartRequest(kind: "sort", after: ["j-ghost"])).error)
        XCTAssertEqual(refusal.code, .badRequest)
        XCTAssertTrue(refusal.message.hasPrefix("after:"), refusal.message)
        XCTAssertTrue(refusal.message.contains("j-ghost"), refusal.message)
        XCTAssertEqual(dispatcher.snapshot().seq, before.seq, "a refused start emits nothing")
        XCTAssertTrue(dispatcher.allJobs().isEmpty)
    }

    // MARK: Limits

    func testKindLimitKeepsASecondJobQueuedWhileOtherKindsRun() throws {
        let limits: [JobKind: EngineConfiguration.KindLimit] = [.sort: .init(maxConcurrent: 1, refuseWhenBusy: false)]
        let fixture = makeTaggedFixture(testConfiguration(workers: 4, kindLimits: limits))
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let first = try fixture.startJob(.sort, tag: "wait-A")
        let second = try fixture.startJob(.sort, tag: "B")
        XCTAssertEqual(second.state, .queued)
        let other = try fixture.startJob(.fetch, tag: "C")
        XCTAssertEqual(recorder.waitForTerminal(other.id)?.state, .succeeded, "workers are free for other kinds")
        XCTAssertEqual(dispatcher.job(second.id.rawValue)?.state, .queued, "still held by the sort limit")

        gates.open("wait-A")
        XCTAssertEqual(recorder.waitForTerminal(second.id)?.state, .succeeded)
        let events = recorder.events
        XCTAssertLessThan(try index(of: .succeeded, first.id, in: events), try index(of: .running, second.id, in: events))
    }

    func testWorkerCountBoundsRunningJobs() throws {
        let fixture = makeTaggedFixture(testConfiguration(workers: 2))
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let jobs = try (1...3).map { try fixture.startJob(.sort, tag: "wait-\($0)") }
        XCTAssertEqual(jobs.map(\.state), [.running, .running, .queued])
        XCTAssertEqual(dispatcher.currentStatistics().jobsRunning, 2)
        gates.open("wait-2")
        XCTAssertEqual(recorder.waitForTerminal(jobs[1].id)?.state, .succeeded)
        XCTAssertTrue(recorder.waitForState(jobs[2].id, .running), "the freed worker takes the queued job")
        gates.open("wait-1")
        gates.open("wait-3")
        XCTAssertNotNil(recorder.waitForTerminal(jobs[2].id))
    }

    func testBusyKindRefusesASecondJob() throws {
        let limits: [JobKind: EngineConfiguration.KindLimit] = [.search: .init(maxConcurrent: 1, refuseWhenBusy: true)]
        let fixture = makeTaggedFixture(testConfiguration(workers: 1, kindLimits: limits))
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let blocker = try fixture.startJob(.sort, tag: "wait-sort")
        let first = try fixture.startJob(.search, tag: "wait-search")
        XCTAssertEqual(first.state, .queued)

        let queuedRefusal = try XCTUnwrap(dispatcher.start(StartRequest(kind: "search", params: ["tag": "x"])).error)
        XCTAssertEqual(queuedRefusal.code, .busy, "a queued search counts")
        XCTAssertTrue(queuedRefusal.message.contains(first.id.rawValue), queuedRefusal.message)
        XCTAssertTrue(queuedRefusal.message.contains("queued"), queuedRefusal.message)

        gates.open("wait-sort")
        XCTAssertNotNil(recorder.waitForTerminal(blocker.id))
        XCTAssertTrue(recorder.waitForState(first.id, .running))
        XCTAssertEqual(dispatcher.start(StartRequest(kind: "search")).error?.code, .busy, "a running search counts")
        XCTAssertEqual(dispatcher.allJobs().count, 2, "refused starts create no job")
        XCTAssertNotNil(try fixture.startJob(.fetch, tag: "other kinds are not busy"))

        gates.open("wait-search")
        XCTAssertNotNil(recorder.waitForTerminal(first.id))
        let next = try fixture.startJob(.search, tag: "after")
        XCTAssertEqual(recorder.waitForTerminal(next.id)?.state, .succeeded)
    }

    // MARK: Requests

    func testStartIsIdempotentByRequestId() throws {
        let fixture = makeTaggedFixture()
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let first = try fixture.startJob(.sort, tag: "once", requestId: "r1")
        let again = try fixture.startJob(.sort, tag: "once", requestId: "r1")
        XCTAssertEqual(again.id, first.id)
        XCTAssertEqual(again.requestId, "r1")
        XCTAssertNotNil(recorder.waitForTerminal(first.id))
        let late = try fixture.startJob(.fetch, tag: "other", requestId: "r1")
        XCTAssertEqual(late.id, first.id, "the same request id means the same job, even after it ended")
        XCTAssertEqual(late.state, .succeeded)
        XCTAssertEqual(dispatcher.allJobs().count, 1)
        XCTAssertEqual(runLog.all, ["once"])
        let different = try fixture.startJob(.sort, tag: "twice", requestId: "r2")
        XCTAssertNotEqual(different.id, first.id)
    }

    func testOnlyTheNewestRequestIdsAreRemembered() throws {
        var configuration = testConfiguration()
        configuration.requestIdsKept = 2
        let fixture = makeTaggedFixture(configuration)
        let jobs = try ["r1", "r2", "r3"].map { try fixture.startJob(.fetch, tag: $0, requestId: $0) }
        XCTAssertEqual(try fixture.startJob(.fetch, tag: "again", requestId: "r3").id, jobs[2].id, "remembered")
        XCTAssertEqual(try fixture.startJob(.fetch, tag: "again", requestId: "r2").id, jobs[1].id, "remembered")
        XCTAssertNotEqual(try fixture.startJob(.fetch, tag: "again", requestId: "r1").id, jobs[0].id, "forgotten: a new job")
    }

    func testRequestIdLength() throws {
        let fixture = makeTaggedFixture()
        let dispatcher = fixture.dispatcher
        XCTAssertEqual(dispatcher.start(StartRequest(kind: "sort", requestId: "")).error?.code, .badRequest)
        XCTAssertEqual(
            dispatcher.start(StartRequest(kind: "sort", requestId: String(repeating: "r", count: 129))).error?.code, .badRequest)
        XCTAssertNotNil(dispatcher.start(StartRequest(kind: "sort", requestId: String(repeating: "r", count: 128))).value)
    }

    func testUnknownKind() throws {
        let dispatcher = makeFixture(runners: [ScriptedRunner.tagged(.search, gates: gates, log: runLog)]).dispatcher
        let refusal = try XCTUnwrap(dispatcher.start(StartRequest(kind: "nope")).error)
        XCTAssertEqual(refusal.code, .unknownKind)
        XCTAssertTrue(refusal.message.contains("known kinds: search"), refusal.message)
        XCTAssertEqual(dispatcher.start(StartRequest(kind: "sort")).error?.code, .unknownKind, "a kind with no runner")
        XCTAssertEqual(dispatcher.start(StartRequest(kind: "Search")).error?.code, .unknownKind, "kinds are case-sensitive")
        XCTAssertTrue(dispatcher.allJobs().isEmpty)
    }

    func testValidationRefusesAndNormalisesParams() throws {
        let runner = ScriptedRunner(
            .sort,
            validate: { params throws(EngineError) in
                guard params["count"] != "many" else { throw .badRequest(field: "count", "must be a number") }
                var normalised = params
                if normalised["count"] == nil { normalised["count"] = 10_000 }
                return normalised
            },
            body: { _ in [:] })
        let dispatcher = makeFixture(runners: [runner]).dispatcher
        let refusal = try XCTUnwrap(dispatcher.start(StartRequest(kind: "sort", params: ["count": "many"])).error)
        XCTAssertEqual(refusal, EngineError(.badRequest, "count: must be a number"))
        XCTAssertTrue(dispatcher.allJobs().isEmpty)
        let accepted = try XCTUnwrap(dispatcher.start(StartRequest(kind: "sort")).value)
        XCTAssertEqual(accepted.params["count"], .int(10_000), "the job keeps the normalised params")
    }

    func testTickerOnlyWhenEnabled() throws {
        let runners = [JobKind.sort, .ticker].map { ScriptedRunner.tagged($0, gates: gates, log: runLog) }
        let disabled = makeFixture(testConfiguration(enableTicker: false), runners: runners).dispatcher
        let refusal = try XCTUnwrap(disabled.start(StartRequest(kind: "ticker")).error)
        XCTAssertEqual(refusal.code, .unknownKind)
        XCTAssertTrue(refusal.message.hasSuffix("known kinds: sort"), "a disabled kind is not advertised: \(refusal.message)")
        XCTAssertNil(disabled.snapshot().limits["kinds"]?["ticker"])

        let fixture = makeFixture(testConfiguration(enableTicker: true), runners: runners)
        let (enabled, recorder) = (fixture.dispatcher, fixture.recorder)
        let job = try fixture.startJob(.ticker, tag: "tick")
        XCTAssertEqual(recorder.waitForTerminal(job.id)?.state, .succeeded)
        XCTAssertNotNil(enabled.snapshot().limits["kinds"]?["ticker"])
    }

    func testUncoalescedProgressIsEmittedEveryTime() throws {
        let runner = ScriptedRunner(.ticker) { context in
            var sent: Int64 = 0
            for value in Int64(1)...50 where context.emitProgressNow(JobProgress(completed: value, total: 50)) { sent += 1 }
            return ["events": .int(sent)]
        }
        // One coalesced event a second would allow two or three of these through; the ticker bypasses it.
        let fixture = makeFixture(testConfiguration(progressEventsPerSecond: 1, enableTicker: true), runners: [runner])
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let job = try XCTUnwrap(dispatcher.start(StartRequest(kind: "ticker")).value)
        let final = try XCTUnwrap(recorder.waitForTerminal(job.id))
        XCTAssertEqual(final.summary?["events"], .int(50))
        XCTAssertEqual(recorder.progress(of: job.id).map(\.completed), Array(1...50))
        XCTAssertEqual(final.progress.completed, 50, "the job record carries the last value")
    }

    // MARK: Progress, results, news

    func testProgressIsCoalescedWithFirstAndFinalValues() throws {
        let rate = 20.0
        let firstSeen = Gate()
        let reports = Atomic<Int>(0)
        let runner = ScriptedRunner(.sort) { context in
            context.progress.report(completed: 1, total: 10_000_000, message: "counting")
            try firstSeen.pass(context)
            let clock = ContinuousClock()
            let end = clock.now + .milliseconds(300)
            var completed: Int64 = 1
            while clock.now < end {
                completed += 1
                context.progress.report(completed: completed, total: 10_000_000)
            }
            reports.store(Int(completed), ordering: .relaxed)
            context.progress.report(completed: 10_000_000, total: 10_000_000, message: "done")
            return [:]
        }
        let fixture = makeFixture(testConfiguration(progressEventsPerSecond: rate), runners: [runner])
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let job = try XCTUnwrap(dispatcher.start(StartRequest(kind: "sort")).value)
        XCTAssertTrue(
            recorder.waitFor("a progress event") { _ in !recorder.progress(of: job.id).isEmpty }, "the first value goes out at once")
        XCTAssertEqual(recorder.progress(of: job.id).first?.completed, 1)
        firstSeen.open()
        XCTAssertEqual(recorder.waitForTerminal(job.id)?.state, .succeeded)

        let events = recorder.events
        let progressEvents = events.filter { $0.progressJob == job.id }
        let progress = recorder.progress(of: job.id)
        XCTAssertEqual(progress.first?.completed, 1)
        XCTAssertEqual(progress.first?.message, "counting")
        XCTAssertEqual(progress.last?.completed, 10_000_000, "the final value always goes out")
        XCTAssertEqual(progress.last?.message, "done")
        XCTAssertEqual(progress.last?.eta, 0)
        let reportCount = reports.load(ordering: .relaxed)
        XCTAssertGreaterThan(reportCount, 1000, "the runner reported in a tight loop")
        let window = Double(progressEvents.last!.ts - progressEvents.first!.ts) / 1_000_000
        // ts is wall-clock time taken just after the monotonic reading the bound uses: allow 1 ms for that.
        XCTAssertLessThanOrEqual(
            Double(progressEvents.count), (window + 0.001) * rate + 2, "\(progressEvents.count) events in \(window) s")
        XCTAssertTrue(progress.dropFirst().contains { $0.rate != nil }, "a rate is computed")
        XCTAssertEqual(zip(progress, progress.dropFirst()).filter { $0.completed > $1.completed }.count, 0)
        let terminal = try index(of: .succeeded, job.id, in: events)
        XCTAssertLessThan(events.firstIndex { $0.seq == progressEvents.last!.seq }!, terminal)
        XCTAssertEqual(events[terminal].jobRecord?.progress.completed, 10_000_000)
    }

    func testResultsStreamAndPage() throws {
        let runner = ScriptedRunner(.search) { context in
            context.emitResults([1, 2])
            context.emitResults([])
            context.emitResults([3])
            return ["matches": 3]
        }
        let fixture = makeFixture(runners: [runner])
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let job = try XCTUnwrap(dispatcher.start(StartRequest(kind: "search")).value)
        XCTAssertNotNil(recorder.waitForTerminal(job.id))
        let batches: [[JSONValue]] = recorder.events.compactMap {
            if case .results(let id, let items) = $0.event, id == job.id { return items } else { return nil }
        }
        XCTAssertEqual(batches, [[1, 2], [3]], "an empty batch is no event")
        let terminal = try index(of: .succeeded, job.id, in: recorder.events)
        XCTAssertFalse(recorder.events[terminal...].contains { if case .results = $0.event { true } else { false } })

        XCTAssertEqual(dispatcher.page(job: job.id.rawValue, offset: 1, limit: 5).value, ResultPage(offset: 1, total: 3, values: [2, 3]))
        XCTAssertEqual(dispatcher.page(job: job.id.rawValue, offset: 9, limit: 5).value, ResultPage(offset: 9, total: 3, values: []))
        XCTAssertEqual(dispatcher.page(job: job.id.rawValue, offset: -1, limit: 5).error?.code, .badRequest)
        XCTAssertEqual(dispatcher.page(job: job.id.rawValue, offset: 0, limit: 0).error?.code, .badRequest)
        XCTAssertEqual(dispatcher.page(job: "j-none", offset: 0, limit: 5).error?.code, .notFound)
    }

    func testNewsFromAJobIsOneEventAndInTheFeed() throws {
        let runner = ScriptedRunner(.fetch) { context in
            let headlines = context.environment.newsSource.fetch()
            context.publishNews(headlines)
            return ["newItems": .int(Int64(headlines.count))]
        }
        let fixture = makeFixture(runners: [runner], newsSource: NewsSource(probability: 1, seed: 1))
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let job = try XCTUnwrap(dispatcher.start(StartRequest(kind: "fetch")).value)
        XCTAssertNotNil(recorder.waitForTerminal(job.id))
        let expected = NewsSource(probability: 1, seed: 1).fetch()
        let news = recorder.events.compactMap { if case .news(let revision, let items) = $0.event { (revision, items) } else { nil } }
        XCTAssertEqual(news.count, 1)
        XCTAssertEqual(news.first?.0, 1)
        XCTAssertEqual(news.first?.1.map(\.headline), expected.reversed(), "newest first")
        let feed = dispatcher.newsFeed()
        XCTAssertEqual(feed.revision, 1)
        XCTAssertEqual(feed.items, news.first?.1)
        XCTAssertEqual(dispatcher.snapshot().news, feed)
    }

    // MARK: Resume

    func testResumeFromTheLogOrWithASnapshot() throws {
        let fixture = makeTaggedFixture(testConfiguration(eventLogSize: 5))
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        for number in 1...3 {
            let job = try fixture.startJob(.sort, tag: "job-\(number)")
            XCTAssertNotNil(recorder.waitForTerminal(job.id))
        }
        let events = recorder.events
        XCTAssertEqual(events.map(\.seq), Array(1...9), "three events per job: queued, running, succeeded")
        let epoch = dispatcher.epoch

        guard case .events(let upToDate) = dispatcher.resume(epoch: epoch, since: 9) else { return XCTFail("expected events") }
        XCTAssertTrue(upToDate.isEmpty)

        guard case .events(let missed) = dispatcher.resume(epoch: epoch, since: 6) else { return XCTFail("expected events") }
        XCTAssertEqual(missed.map(\.seq), [7, 8, 9])
        XCTAssertEqual(missed.map(\.json), events.suffix(3).map(\.json), "the same bytes the live stream carried")

        guard case .events(let all) = dispatcher.resume(epoch: epoch, since: 4) else { return XCTFail("oldest-1 is servable") }
        XCTAssertEqual(all.map(\.seq), [5, 6, 7, 8, 9])

        for (label, answer) in [
            ("too old", dispatcher.resume(epoch: epoch, since: 3)),
            ("another epoch", dispatcher.resume(epoch: "0123456789abcdef", since: 9)),
            ("from the future", dispatcher.resume(epoch: epoch, since: 10)),
        ] {
            guard case .snapshot(let snapshot) = answer else { XCTFail("\(label): expected a snapshot"); continue }
            XCTAssertEqual(snapshot.seq, 9, label)
            XCTAssertEqual(snapshot.epoch, epoch, label)
            XCTAssertEqual(snapshot.jobs.count, 3, label)
        }
    }

    func testEpochDiffersBetweenDispatchers() {
        let one = makeTaggedFixture().dispatcher
        let two = makeTaggedFixture().dispatcher
        XCTAssertNotEqual(one.epoch, two.epoch)
        guard case .snapshot = two.resume(epoch: one.epoch, since: 0) else { return XCTFail("another epoch needs a snapshot") }
    }

    // MARK: Shutdown

    func testShutdownCancelsRunningJobsAfterGrace() throws {
        let fixture = makeTaggedFixture(testConfiguration(workers: 1))
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let spinning = try fixture.startJob(.sort, tag: "spin")
        let queued = try fixture.startJob(.fetch, tag: "never")
        XCTAssertTrue(recorder.waitForState(spinning.id, .running))

        dispatcher.shutdown(grace: 0.1)
        // `shutdown` returns once running jobs have ended.
        XCTAssertEqual(dispatcher.job(spinning.id.rawValue)?.state, .cancelled)
        XCTAssertEqual(dispatcher.job(spinning.id.rawValue)?.error, "cancelled by request")
        let queuedFinal = try XCTUnwrap(dispatcher.job(queued.id.rawValue))
        XCTAssertEqual(queuedFinal.state, .cancelled)
        XCTAssertEqual(queuedFinal.error, "the server shut down before it ran")
        XCTAssertEqual(runLog.all, ["spin"])
        XCTAssertEqual(dispatcher.start(StartRequest(kind: "fetch")).error?.code, .shuttingDown)
        XCTAssertFalse(recorder.events.contains { $0.jobRecord?.state == .succeeded })
    }

    func testShutdownLetsAJobFinishWithinGrace() throws {
        let fixture = makeTaggedFixture()
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let job = try fixture.startJob(.sort, tag: "wait-A")
        XCTAssertTrue(recorder.waitForState(job.id, .running))
        let done = expectation(description: "shutdown returned")
        Thread.detachNewThread {
            dispatcher.shutdown(grace: 60)
            done.fulfill()
        }
        // An unknown kind is refused as `shutting_down` once shutdown began, and creates nothing before.
        var answer: EngineError?
        XCTAssertTrue(
            waitUntil("starts are refused as shutting down", seen: { "the last answer: \(String(describing: answer))" }) {
                answer = dispatcher.start(StartRequest(kind: "none")).error
                return answer?.code == .shuttingDown
            })
        XCTAssertEqual(dispatcher.job(job.id.rawValue)?.state, .running, "grace: the running job is left alone")
        gates.open("wait-A")
        wait(for: [done], timeout: 20)
        XCTAssertEqual(dispatcher.job(job.id.rawValue)?.state, .succeeded)
    }
}
