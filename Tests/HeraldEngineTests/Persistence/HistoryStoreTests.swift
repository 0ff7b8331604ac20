import Foundation
import HeraldEngine
import HeraldTestSupport
import XCTest

final class HistoryStoreTests: XCTestCase {
    private let gates = GateBook()
    private let runLog = RunLog()

    private func runners() -> [any JobRunner] {
        [JobKind.search, .sort, .fetch].map { ScriptedRunner.tagged($0, gates: gates, log: runLog) }
    }

    private func dataDirectory(_ directory: TemporaryDirectory) -> URL { directory.url.appendingPathComponent("data") }

    private func historyFile(_ directory: TemporaryDirectory) -> URL { dataDirectory(directory).appendingPathComponent("jobs.jsonl") }

    private func writeLines(_ lines: [String], to directory: TemporaryDirectory) throws {
        try FileManager.default.createDirectory(at: dataDirectory(directory), withIntermediateDirectories: true)
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: historyFile(directory))
    }

    private func line(_ record: JobRecord) -> String { JSONWriter.string(record.json) }

    /// The records in the history file, line by line.
    private func fileRecords(_ directory: TemporaryDirectory) throws -> [JobRecord] {
        let data = try Data(contentsOf: historyFile(directory))
        return try data.split(separator: UInt8(ascii: "\n")).map { line in
            try XCTUnwrap(JobRecord(json: try JSONParser.parse(Array(line))))
        }
    }

    // MARK: Reload through the dispatcher

    func testFinishedJobsReloadInANewDispatcher() throws {
        let directory = makeTemporaryDirectory()
        let firstFixture = makeFixture(
            testConfiguration(workers: 1), runners: runners(), folder: directory,
            history: HistoryStore(directory: dataDirectory(directory)))
        let (first, recorder) = (firstFixture.dispatcher, firstFixture.recorder)
        let good = try firstFixture.startJob(.sort, tag: "wait-good")
        let bad = try firstFixture.startJob(.fetch, tag: "fail-bad", after: [good.id])
        let dropped = try firstFixture.startJob(.search, tag: "dropped")
        _ = first.cancel(dropped.id.rawValue)
        gates.open("wait-good")
        for id in [good.id, bad.id, dropped.id] { XCTAssertNotNil(recorder.waitForTerminal(id)) }
        first.shutdown(grace: 5)
        let before = first.allJobs()
        XCTAssertEqual(before.map(\.state), [.succeeded, .failed, .cancelled])

        let store = HistoryStore(directory: dataDirectory(directory))
        let secondFixture = makeFixture(testConfiguration(), runners: runners(), folder: directory, history: store)
        let second = secondFixture.dispatcher
        XCTAssertEqual(second.allJobs(), before, "every field survives the round trip through the file")
        XCTAssertTrue(store.problems.isEmpty, "\(store.problems)")
        XCTAssertEqual(second.snapshot().jobs.map(\.id), [good.id, bad.id, dropped.id])
        XCTAssertEqual(second.snapshot().seq, 0, "loaded jobs are state, not events")
        XCTAssertNotEqual(second.epoch, first.epoch)
        XCTAssertEqual(try fileRecords(directory), before, "the file was compacted to one line per job")

        // A reloaded job can be a dependency.
        let recorder2 = secondFixture.recorder
        let next = try secondFixture.startJob(.sort, tag: "next", after: [good.id])
        XCTAssertEqual(recorder2.waitForTerminal(next.id)?.state, .succeeded)
        XCTAssertEqual(second.cancel(good.id.rawValue).error?.code, .notCancellable)
    }

    func testEveryStateChangeIsAppended() throws {
        let directory = makeTemporaryDirectory()
        let store = HistoryStore(directory: dataDirectory(directory))
        let fixture = makeFixture(runners: runners(), folder: directory, history: store)
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        let job = try fixture.startJob(.sort, tag: "quick")
        XCTAssertNotNil(recorder.waitForTerminal(job.id))
        store.flush()
        let lines = try fileRecords(directory)
        XCTAssertEqual(lines.map(\.state), [.queued, .running, .succeeded])
        XCTAssertEqual(lines.last, dispatcher.job(job.id.rawValue))
    }

    func testForgottenJobsLeaveMemoryAndTheFile() throws {
        let directory = makeTemporaryDirectory()
        let store = HistoryStore(directory: dataDirectory(directory))
        let fixture = makeFixture(
            testConfiguration(retainedFinishedJobs: 2), runners: runners(), folder: directory, history: store)
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        var ids: [JobID] = []
        for number in 1...4 {
            let job = try fixture.startJob(.sort, tag: "job-\(number)")
            XCTAssertNotNil(recorder.waitForTerminal(job.id))
            ids.append(job.id)
        }
        XCTAssertEqual(dispatcher.allJobs().map(\.id), Array(ids.suffix(2)))
        dispatcher.shutdown(grace: 1)
        XCTAssertEqual(HistoryStore(directory: dataDirectory(directory)).load().map(\.id), Array(ids.suffix(2)))
    }

    // MARK: Loading by hand

    func testMissingFileIsAnEmptyHistory() throws {
        let directory = makeTemporaryDirectory()
        let store = HistoryStore(directory: dataDirectory(directory))
        XCTAssertEqual(store.load(), [])
        XCTAssertTrue(store.problems.isEmpty)
        XCTAssertTrue(FileManager.default.fileExists(atPath: historyFile(directory).path), "the file is made for appending")
    }

    func testUnfinishedJobsLoadAsInterrupted() throws {
        let directory = makeTemporaryDirectory()
        let running = JobRecord(
            id: JobID("j-running"), kind: .sort, params: ["count": 5], state: .running,
            progress: JobProgress(completed: 2, total: 5, rate: 3, eta: 1), createdAt: 1000, startedAt: 1001)
        let queued = JobRecord(id: JobID("j-queued"), kind: .fetch, params: [:], createdAt: 1002)
        let waiting = JobRecord(
            id: JobID("j-waiting"), kind: .search, params: [:], after: [JobID("j-running")], state: .waiting, createdAt: 1003)
        let done = JobRecord(
            id: JobID("j-done"), kind: .sort, params: [:], state: .succeeded, createdAt: 900, startedAt: 901, finishedAt: 950,
            summary: ["count": 1])
        try writeLines([line(done), line(running), line(queued), line(waiting)], to: directory)

        let loadStart = Int64(Date().timeIntervalSince1970 * 1000)
        let store = HistoryStore(directory: dataDirectory(directory))
        let loaded = store.load()
        XCTAssertEqual(loaded.map(\.id.rawValue), ["j-done", "j-running", "j-queued", "j-waiting"])
        XCTAssertEqual(loaded.map(\.state), [.succeeded, .interrupted, .interrupted, .interrupted])
        XCTAssertEqual(loaded[0], done, "a finished job is left as it was")
        XCTAssertEqual(loaded[1].error, "the server stopped while this job was running")
        XCTAssertEqual(loaded[2].error, "the server stopped while this job was queued")
        XCTAssertEqual(loaded[3].error, "the server stopped while this job was waiting")
        XCTAssertEqual(loaded[1].progress, JobProgress(completed: 2, total: 5), "the last known progress is kept, without rate or ETA")
        XCTAssertEqual(loaded[1].startedAt, 1001)
        for record in loaded.dropFirst() {
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(record.finishedAt), loadStart)
        }
        XCTAssertTrue(store.problems.isEmpty)
        XCTAssertEqual(try fileRecords(directory), loaded, "the file now says interrupted too")
    }

    func testInterruptedJobInADispatcher() throws {
        let directory = makeTemporaryDirectory()
        let running = JobRecord(id: JobID("j-crashed"), kind: .sort, params: [:], state: .running, createdAt: 1, startedAt: 2)
        try writeLines([line(running)], to: directory)
        let dispatcher = makeFixture(
            runners: runners(), folder: directory, history: HistoryStore(directory: dataDirectory(directory))
        ).dispatcher
        XCTAssertEqual(dispatcher.job("j-crashed")?.state, .interrupted)
        XCTAssertEqual(dispatcher.cancel("j-crashed").error?.code, .notCancellable)
        let dependent = try XCTUnwrap(dispatcher.start(StartRequest(kind: "sort", after: ["j-crashed"])).value)
        XCTAssertEqual(dependent.state, .cancelled)
        XCTAssertEqual(dependent.error, "dependency j-crashed ended interrupted")
    }

    func testLastLineForAnIdWins() throws {
        let directory = makeTemporaryDirectory()
        var record = JobRecord(id: JobID("j-a"), kind: .sort, params: [:], createdAt: 1)
        let other = JobRecord(id: JobID("j-b"), kind: .fetch, params: [:], state: .cancelled, createdAt: 2, error: "cancelled by request")
        var lines = [line(record), line(other)]
        try record.move(to: .running)
        lines.append(line(record))
        try record.move(to: .succeeded)
        lines.append(line(record))
        try writeLines(lines, to: directory)
        let loaded = HistoryStore(directory: dataDirectory(directory)).load()
        XCTAssertEqual(loaded, [record, other], "first-seen order, last state")
    }

    func testCorruptLinesAreSetAsideAndReadableJobsLoad() throws {
        let directory = makeTemporaryDirectory()
        let first = JobRecord(id: JobID("j-first"), kind: .sort, params: [:], state: .succeeded, createdAt: 1, finishedAt: 3)
        let second = JobRecord(id: JobID("j-second"), kind: .fetch, params: [:], state: .failed, createdAt: 2, finishedAt: 4, error: "x")
        let lines = [line(first), #"{"id":"j-broken","kind":"sort","sta"#, "", #"{"id":"j-alien","kind":"teleport"}"#, line(second)]
        try writeLines(lines, to: directory)
        let original = try Data(contentsOf: historyFile(directory))

        let messages = LogLines()
        let store = HistoryStore(directory: dataDirectory(directory)) { messages.append($0) }
        XCTAssertEqual(store.load(), [first, second], "not fatal: the readable jobs load")

        let names = directory.names(in: dataDirectory(directory))
        let asides = names.filter { $0.hasPrefix("jobs.jsonl.corrupt-") }
        XCTAssertEqual(asides.count, 1, "\(names)")
        let aside = try XCTUnwrap(asides.first)
        let stamp = aside.dropFirst("jobs.jsonl.corrupt-".count).split(separator: "-")
        XCTAssertEqual(stamp.count, 2, "seconds, then a random tag so two loads in one second never collide: \(aside)")
        XCTAssertNotNil(stamp.first.flatMap { Int($0) }, aside)
        XCTAssertEqual(try Data(contentsOf: dataDirectory(directory).appendingPathComponent(aside)), original, "kept byte for byte")
        XCTAssertEqual(store.problems.count, 1)
        XCTAssertTrue(store.problems[0].contains("2 unreadable line(s)"), store.problems[0])
        XCTAssertTrue(store.problems[0].contains(aside), store.problems[0])
        XCTAssertEqual(messages.all, store.problems)
        XCTAssertEqual(try fileRecords(directory), [first, second], "the live file holds only readable jobs")

        // A dispatcher on that directory starts and works.
        let fixture = makeFixture(
            runners: runners(), folder: directory, history: HistoryStore(directory: dataDirectory(directory)))
        let (dispatcher, recorder) = (fixture.dispatcher, fixture.recorder)
        XCTAssertEqual(dispatcher.allJobs(), [first, second])
        let job = try fixture.startJob(.sort, tag: "fresh")
        XCTAssertEqual(recorder.waitForTerminal(job.id)?.state, .succeeded)
    }
}

/// Lines a `HistoryStore` logged. Thread: any.
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.value }
}
