import Dispatch
import Foundation
import HeraldEngine
import Synchronization
import HeraldTestSupport
import XCTest

/// Many jobs reporting at once while other threads start, cancel, subscribe and resume. Meant to run
/// under ThreadSanitizer too (`swift test --sanitize=thread`).
final class JobDispatcherConcurrencyTests: XCTestCase {
    private static let steps = 2000

    /// Counts `steps` units of work, reporting each, streaming a result every 25 and (fetch) news every
    /// 250; a search counts on two threads into the same bar, the others name their phase every 100.
    /// Yields now and then so jobs overlap.
    private func workloadRunner(_ kind: JobKind) -> ScriptedRunner {
        ScriptedRunner(kind) { context in
            let steps = Self.steps
            context.progress.setTotal(Int64(steps))
            let lanes = kind == .search ? 2 : 1
            let failure = Locked<(any Error)?>(nil)
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                do {
                    for step in stride(from: lane + 1, through: steps, by: lanes) {
                        try context.checkCancelled()
                        context.progress.add(1)
                        if step % 25 == 0 { context.emitResults([.int(Int64(step))]) }
                        if kind == .fetch, step % 250 == 0 { context.publishNews(["\(context.id) at \(step)"]) }
                        if lanes == 1, step % 100 == 0 {
                            context.progress.report(completed: Int64(step), total: Int64(steps), message: "phase \(step / 100)")
                        }
                        if step % 20 == 0 { usleep(100) }
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
            }
            if let error = failure.withLock({ $0 }) { throw error }
            return ["steps": .int(Int64(steps))]
        }
    }

    private func makeLoadedFixture() -> DispatcherFixture {
        let limit = EngineConfiguration.KindLimit(maxConcurrent: 8, refuseWhenBusy: false)
        let configuration = testConfiguration(
            workers: 8, kindLimits: [.search: limit, .sort: limit, .fetch: limit], progressEventsPerSecond: 500,
            eventLogSize: 256)
        return makeFixture(configuration, runners: [JobKind.search, .sort, .fetch].map(workloadRunner))
    }

    /// Starts `perThread` jobs on each of `threads` threads at once (some depending on earlier ones,
    /// some cancelled soon after), and returns their ids once all are started.
    /// `onStarted(thread, number)` runs on the starting thread after each start.
    private func startWorkload(
        _ dispatcher: JobDispatcher, threads: Int = 3, perThread: Int = 12,
        onStarted: @Sendable (Int, Int) -> Void = { _, _ in }
    ) -> [JobID] {
        let started = Locked<[JobID]>([])
        let refusals = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var mine: [JobID] = []
            for number in 0..<perThread {
                let kind = [JobKind.search, .sort, .fetch][(thread + number) % 3]
                let after = number % 4 == 3 ? [mine[number - 2].rawValue] : []
                switch dispatcher.start(StartRequest(kind: kind.rawValue, after: after, requestId: "t\(thread)-\(number)")) {
                case .success(let record): mine.append(record.id)
                case .failure(let error): refusals.withLock { $0.append("\(error)") }; return
                }
                // Cancels an earlier job, queued or running; job 1 has job 3 depending on it.
                if number % 5 == 4 { _ = dispatcher.cancel(mine[number - 3].rawValue) }
                onStarted(thread, number)
            }
            started.withLock { $0.append(contentsOf: mine) }
        }
        XCTAssertEqual(refusals.withLock { $0 }, [])
        return started.withLock { $0 }
    }

    private func waitForAllTerminal(
        _ ids: [JobID], _ recorder: EventRecorder, timeout: Double = 120, file: StaticString = #filePath, line: UInt = #line
    ) -> Bool {
        func ended(_ events: [SequencedEvent]) -> Set<JobID> {
            Set(events.compactMap { $0.jobRecord.flatMap { $0.state.isTerminal ? $0.id : nil } })
        }
        let seen = { "\(ended(recorder.events).count) of \(ids.count) jobs ended; \(recorder.describeLast())" }
        return recorder.waitFor("every job ends", timeout: timeout, seen: seen, file: file, line: line) { events in
            ids.allSatisfy(ended(events).contains)
        }
    }

    func testEverySubscriberSeesAGaplessStream() throws {
        let fixture = makeLoadedFixture()
        let (dispatcher, full) = (fixture.dispatcher, fixture.recorder)
        let stop = Atomic<Bool>(false)
        let problems = Locked<[String]>([])
        let rounds = Atomic<Int>(0)
        let resumes = Atomic<Int>(0)
        let subscriberDone = expectation(description: "subscriber thread ended")

        Thread.detachNewThread {
            defer { subscriberDone.fulfill() }
            while !stop.load(ordering: .relaxed) {
                let recorder = EventRecorder(dispatcher)
                // Pacing: a subscriber that got too few events is reported as stalled below.
                _ = recorder.poll(timeout: 10) { $0.count >= 15 || stop.load(ordering: .relaxed) }
                recorder.stop()
                let events = recorder.events
                let start = recorder.snapshot.seq
                let expected = Array((start + 1)..<(start + 1 + Int64(events.count)))
                if events.map(\.seq) != expected {
                    problems.withLock { $0.append("subscriber from \(start): \(events.map(\.seq))") }
                }
                if events.count > 0, events.count < 15, !stop.load(ordering: .relaxed) {
                    problems.withLock { $0.append("subscriber from \(start) stalled at \(events.count) events") }
                }
                rounds.add(1, ordering: .relaxed)
                // Resume from where this subscriber stood: the log may or may not still have it.
                if case .events(let missed) = dispatcher.resume(epoch: dispatcher.epoch, since: start) {
                    resumes.add(1, ordering: .relaxed)
                    if missed.map(\.seq) != Array((start + 1)..<(start + 1 + Int64(missed.count))) {
                        problems.withLock { $0.append("resume from \(start): \(missed.map(\.seq))") }
                    }
                }
            }
        }

        let ids = startWorkload(dispatcher)
        XCTAssertEqual(Set(ids).count, 36)
        XCTAssertTrue(waitForAllTerminal(ids, full), "every job ended")
        stop.store(true, ordering: .relaxed)
        wait(for: [subscriberDone], timeout: 30)

        XCTAssertEqual(problems.withLock { $0 }, [])
        XCTAssertGreaterThan(rounds.load(ordering: .relaxed), 0)
        let events = full.events
        XCTAssertEqual(events.map(\.seq), Array(1...Int64(events.count)), "the long-lived subscriber saw 1...n without gaps")
        XCTAssertEqual(dispatcher.snapshot().seq, Int64(events.count))
        // Every job that ran to the end had its final value streamed before its final job event.
        for id in ids where dispatcher.job(id.rawValue)?.state == .succeeded {
            let progress = full.progress(of: id)
            XCTAssertEqual(progress.last?.completed, Int64(Self.steps), "\(id)")
            XCTAssertEqual(full.terminal(of: id)?.progress.completed, Int64(Self.steps), "\(id)")
        }

        // No progress or results for a job after its final job event.
        var ended: Set<JobID> = []
        var late: [String] = []
        for event in events {
            switch event.event {
            case .job(let record) where record.state.isTerminal: ended.insert(record.id)
            case .progress(let id, _) where ended.contains(id): late.append("progress \(event.seq) for \(id)")
            case .results(let id, _) where ended.contains(id): late.append("results \(event.seq) for \(id)")
            default: break
            }
        }
        XCTAssertEqual(late, [])

        // Every streamed result is in the job's page, and only those.
        for id in ids {
            let streamed = events.reduce(0) { count, event in
                if case .results(let job, let items) = event.event, job == id { return count + items.count }
                return count
            }
            XCTAssertEqual(dispatcher.page(job: id.rawValue, offset: 0, limit: 10_000).value?.total, streamed, "\(id)")
        }
        let finished = dispatcher.currentStatistics().finished.values.reduce(0, +)
        XCTAssertEqual(finished, ids.count)
    }

    func testSnapshotThenStreamRebuildsTheFinalState() throws {
        let fixture = makeLoadedFixture()
        let (dispatcher, full) = (fixture.dispatcher, fixture.recorder)
        // Subscribers that join at different moments while jobs start, run and end.
        let joined = Locked<[EventRecorder]>([])
        let stop = Atomic<Bool>(false)
        let joinerDone = expectation(description: "joiner thread ended")
        Thread.detachNewThread {
            defer { joinerDone.fulfill() }
            while !stop.load(ordering: .relaxed) {
                let recorder = EventRecorder(dispatcher)
                joined.withLock { $0.append(recorder) }
                // Pacing only: whatever this subscriber got is checked against the final state below.
                _ = recorder.poll(timeout: 10) { $0.count >= 40 || stop.load(ordering: .relaxed) }
            }
        }

        // ... and, for certain, every fourth start on each starting thread.
        let ids = startWorkload(dispatcher) { _, number in
            if number % 4 == 1 { joined.withLock { $0.append(EventRecorder(dispatcher)) } }
        }
        XCTAssertTrue(waitForAllTerminal(ids, full))
        stop.store(true, ordering: .relaxed)
        wait(for: [joinerDone], timeout: 30)

        let final = dispatcher.snapshot()
        XCTAssertEqual(final.seq, full.events.last?.seq, "nothing happens once every job ended")
        var fromStart = StreamModel(full.snapshot)
        fromStart.apply(full.events)
        XCTAssertEqual(fromStart.differences(from: final), [])
        XCTAssertGreaterThan(final.news.revision, 0, "fetch jobs published news")

        let recorders = joined.withLock { $0 }
        XCTAssertGreaterThanOrEqual(recorders.count, 9)
        for recorder in recorders {
            var model = StreamModel(recorder.snapshot)
            model.apply(recorder.events)
            XCTAssertEqual(model.differences(from: final), [], "joined at seq \(recorder.snapshot.seq)")
            recorder.stop()
        }
        XCTAssertTrue(recorders.contains { $0.snapshot.seq > 0 && !$0.snapshot.jobs.isEmpty }, "someone joined mid-stream")
    }
}
