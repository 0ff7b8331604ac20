import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// History pages through a dispatcher with a real store: jobs in memory and archived, a reload,
/// and what a crash leaves (a torn line, a job in both journal and archive, temporary files).
final class HistoryPagingTests: XCTestCase {
    private let gates = GateBook()
    private let runLog = RunLog()

    private func runners() -> [any JobRunner] {
        [JobKind.search, .sort, .fetch].map { ScriptedRunner.tagged($0, gates: gates, log: runLog) }
    }

    private func data(_ directory: TemporaryDirectory) -> URL { directory.url.appendingPathComponent("data") }

    private func store(_ directory: TemporaryDirectory, log: @escaping @Sendable (String) -> Void = { _ in }) -> HistoryStore {
        HistoryStore(directory: data(directory), limits: HistoryLimits(archivedJobs: 100, maxSegmentJobs: 3), log: log)
    }

    /// Every page of `query`, following `next`.
    private func pages(_ dispatcher: JobDispatcher, _ query: HistoryQuery) throws -> [HistoryPage] {
        var pages: [HistoryPage] = []
        var query = query
        repeat {
            let page = try dispatcher.history(query).get()
            pages.append(page)
            query.before = page.next
        } while query.before != nil && pages.count < 100
        return pages
    }

    func testPagesCoverMemoryAndTheArchiveAndSurviveARestart() throws {
        let directory = makeTemporaryDirectory()
        let fixture = makeFixture(
            testConfiguration(workers: 1, retainedFinishedJobs: 2), runners: runners(), folder: directory, history: store(directory))
        var started: [JobRecord] = []
        for (index, (kind, tag)) in [(JobKind.sort, "a"), (.fetch, "fail-b"), (.sort, "c"), (.search, "d"), (.sort, "fail-e")]
            .enumerated()
        {
            let job = try fixture.startJob(kind, tag: tag)
            XCTAssertNotNil(fixture.recorder.waitForTerminal(job.id), "job \(index)")
            started.append(job)
        }
        let waiting = try fixture.startJob(.fetch, tag: "wait-f")
        XCTAssertEqual(fixture.dispatcher.allJobs().count, 3, "two finished in memory and the running one")

        // History's order: newest `createdAt` first, ties (jobs made in the same millisecond) by id.
        func newestFirst(_ jobs: [JobRecord]) -> [JobID] { jobs.sorted { HistoryCursor($1) < HistoryCursor($0) }.map(\.id) }
        let all = try pages(fixture.dispatcher, HistoryQuery(limit: 2))
        XCTAssertEqual(all.flatMap(\.jobs).map(\.id), newestFirst(started + [waiting]), "memory and archive, newest first")
        XCTAssertEqual(all.map(\.jobs.count), [2, 2, 2])
        XCTAssertEqual(all.flatMap(\.jobs).first { $0.id == waiting.id }?.state, .running, "unfinished jobs are listed too")
        let archived = try XCTUnwrap(all.flatMap(\.jobs).first { $0.id == started[0].id })
        XCTAssertEqual(archived, fixture.recorder.waitForTerminal(started[0].id), "an archived job is the same object as it was")

        let failedSorts = try pages(fixture.dispatcher, HistoryQuery(states: [.failed], kinds: [.sort], limit: 500))
        XCTAssertEqual(failedSorts.flatMap(\.jobs).map(\.id), [started[4].id])
        let sortsOrFetches = try pages(fixture.dispatcher, HistoryQuery(kinds: [.sort, .fetch], limit: 1))
        XCTAssertEqual(sortsOrFetches.flatMap(\.jobs).map(\.id), newestFirst([waiting, started[4], started[2], started[1], started[0]]))
        XCTAssertEqual(fixture.dispatcher.history(HistoryQuery(limit: 0)).error?.code, .badRequest)

        gates.open("wait-f")
        XCTAssertNotNil(fixture.recorder.waitForTerminal(waiting.id))
        fixture.dispatcher.shutdown(grace: 1)
        let before = try pages(fixture.dispatcher, HistoryQuery(limit: 500)).flatMap(\.jobs)

        let second = makeFixture(
            testConfiguration(workers: 1, retainedFinishedJobs: 2), runners: runners(), folder: directory, history: store(directory))
        XCTAssertEqual(second.dispatcher.allJobs().map(\.id), [started[4].id, waiting.id], "only the jobs that were in memory come back")
        XCTAssertEqual(try pages(second.dispatcher, HistoryQuery(limit: 3)).flatMap(\.jobs), before)
    }

    func testATornJournalLineIsDroppedAndReported() throws {
        let directory = makeTemporaryDirectory()
        let done = JobRecord(id: JobID("j-done"), kind: .sort, params: [:], state: .succeeded, createdAt: 5, finishedAt: 6)
        let running = JobRecord(id: JobID("j-run"), kind: .sort, params: [:], state: .running, createdAt: 7, startedAt: 8)
        var text = JSONWriter.string(done.json) + "\n" + JSONWriter.string(running.json) + "\n"
        text += String(JSONWriter.string(done.json).prefix(30))
        try FileManager.default.createDirectory(at: data(directory), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: data(directory).appendingPathComponent("jobs.jsonl"))

        let messages = LogLines()
        let history = store(directory) { messages.append($0) }
        let loaded = history.load()
        XCTAssertEqual(loaded.map(\.state), [.succeeded, .interrupted])
        XCTAssertEqual(
            messages.all,
            [
                "history: dropped a torn last line (30 bytes) at the end of jobs.jsonl, left by a crash while it was written; every whole line was loaded"
            ])
        XCTAssertFalse(directory.names(in: data(directory)).contains { $0.contains("corrupt") }, "a torn line is not corruption")
        let rewritten = try String(contentsOf: data(directory).appendingPathComponent("jobs.jsonl"), encoding: .utf8)
        XCTAssertEqual(rewritten.split(separator: "\n").count, 2)
        XCTAssertTrue(rewritten.hasSuffix("\n"))
    }

    func testAJobInBothJournalAndArchiveIsListedOnceAndTemporaryFilesAreRemoved() throws {
        let directory = makeTemporaryDirectory()
        // A crash between archiving a job and marking it forgotten: it is in both files.
        let twice = JobRecord(id: JobID("j-twice"), kind: .sort, params: [:], state: .succeeded, createdAt: 10, finishedAt: 11)
        let older = JobRecord(id: JobID("j-older"), kind: .sort, params: [:], state: .failed, createdAt: 9, finishedAt: 12, error: "x")
        let history = data(directory).appendingPathComponent("history")
        try FileManager.default.createDirectory(at: history, withIntermediateDirectories: true)
        try Data((JSONWriter.string(older.json) + "\n" + JSONWriter.string(twice.json) + "\n").utf8)
            .write(to: history.appendingPathComponent(HistoryArchive.name(1)))
        try Data((JSONWriter.string(twice.json) + "\n").utf8).write(to: data(directory).appendingPathComponent("jobs.jsonl"))
        let leftovers = [".numbers-5.bin.tmp-\(UUID().uuidString)", "logs/.j-x.jsonl.tmp-\(UUID().uuidString)"]
        for name in leftovers + [".keep.tmp-not-a-uuid"] {
            let url = data(directory).appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("half".utf8).write(to: url)
        }

        let messages = LogLines()
        let fixture = makeFixture(
            testConfiguration(retainedFinishedJobs: 1), runners: runners(), folder: directory,
            history: store(directory) { messages.append($0) })
        XCTAssertEqual(try pages(fixture.dispatcher, HistoryQuery(limit: 1)).flatMap(\.jobs), [twice, older])
        XCTAssertEqual(messages.all.count, 1)
        XCTAssertTrue(messages.all[0].hasPrefix("history: removed 2 unfinished temporary file(s)"), messages.all[0])
        XCTAssertTrue(directory.names(in: data(directory)).contains(".keep.tmp-not-a-uuid"), "only what AtomicFile leaves is removed")
        XCTAssertEqual(directory.names(in: data(directory).appendingPathComponent("logs")), [])

        // Archived again when it leaves memory: still one row per job.
        let next = try fixture.startJob(.sort, tag: "next")
        XCTAssertNotNil(fixture.recorder.waitForTerminal(next.id))
        let ids = try pages(fixture.dispatcher, HistoryQuery(limit: 1)).flatMap(\.jobs).map(\.id)
        XCTAssertEqual(ids, [next.id, twice.id, older.id])
    }

    /// The record of a job by id, as `GET /api/jobs/ID` asks for it (a message, answered off the caller).
    private func lookUp(_ dispatcher: JobDispatcher, _ id: String) -> Result<JobRecord, EngineError>? {
        let answer = Locked<EngineReply?>(nil)
        dispatcher.send(.job(id)) { reply in answer.withLock { $0 = reply } }
        guard case .job(let result) = waitFor(answer) else { return nil }
        return result
    }

    private func waitFor(_ answer: Locked<EngineReply?>) -> EngineReply? {
        XCTAssertTrue(poll(timeout: 20) { answer.value != nil }, "no answer")
        return answer.value
    }

    func testAnArchivedJobIsReadableByIdAndItsPageSaysItsResultsAreGone() throws {
        let directory = makeTemporaryDirectory()
        let fixture = makeFixture(
            testConfiguration(workers: 1, retainedFinishedJobs: 1), runners: runners(), folder: directory, history: store(directory))
        var done: [JobRecord] = []
        for tag in ["a", "b", "c", "d", "e"] {
            let job = try fixture.startJob(.search, tag: tag)
            done.append(try XCTUnwrap(fixture.recorder.waitForTerminal(job.id)))
        }
        XCTAssertNil(fixture.dispatcher.job(done[0].id.rawValue), "the first search left memory")
        for record in done {
            XCTAssertEqual(lookUp(fixture.dispatcher, record.id.rawValue)?.value, record, "in memory or archived, by id")
        }
        let page = Locked<EngineReply?>(nil)
        fixture.dispatcher.send(.page(job: done[1].id.rawValue, offset: 0, limit: 10)) { reply in page.withLock { $0 = reply } }
        guard case .page(.failure(let error)) = waitFor(page) else { return XCTFail("an archived job's page is refused") }
        XCTAssertEqual(error.code, .gone)
        XCTAssertTrue(error.message.contains("archived"), error.message)
        XCTAssertEqual(lookUp(fixture.dispatcher, "j-neverexisted")?.error?.code, .notFound)
    }
}
