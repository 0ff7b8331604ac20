import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// Real programs as jobs: progress from their output, logs, outcomes, timeouts, and a cancel that
/// leaves no process of the group behind.
final class CommandRunnerTests: XCTestCase {
    /// Writes an executable shell script and returns a kind that runs it with `params`.
    private func kind(
        _ name: String, script: String, params: [(String, ParamSchema)] = [], configure: (inout CommandKind) -> Void = { _ in }
    ) throws -> (CommandKind, URL) {
        let folder = makeTemporaryDirectory().url
        let path = folder.appendingPathComponent("\(name).sh")
        try ("#!/bin/sh\n" + script).write(to: path, atomically: true, encoding: .utf8)
        chmod(path.path, 0o755)
        var kind = CommandKind(name: JobKind(name), title: name, command: [path.path] + params.map { "{\($0.0)}" }, params: params)
        kind.grace = 2
        configure(&kind)
        return (kind, folder)
    }

    private func fixture(_ kinds: CommandKind...) -> DispatcherFixture {
        makeFixture(testConfiguration(progressEventsPerSecond: 1000), runners: kinds.map { CommandRunner($0) })
    }

    private func logLines(_ fixture: DispatcherFixture, _ id: JobID) -> [LogLine] {
        fixture.recorder.events.flatMap { event -> [LogLine] in
            if case .log(let job, let lines, _, _) = event.event, job == id { return lines }
            return []
        }
    }

    func testProgressLogsAndResultOfASucceedingProgram() throws {
        let (kind, _) = try kind(
            "copy",
            script: #"""
                echo "starting copy"
                echo '{"progress": 0.25, "message": "copying photos"}'
                echo '{"completed": 3, "total": 4}'
                echo "warning: slow disk" >&2
                echo '{"items": [{"file": "a.jpg"}]}'
                echo "{\"result\": {\"job\": \"$HERALD_JOB_ID\", \"attempt\": \"$HERALD_ATTEMPT\", \"params\": $HERALD_PARAMS, \"unbuffered\": \"$PYTHONUNBUFFERED\"}}"
                """#, params: [("who", ParamSchema(type: .string))])
        let fixture = fixture(kind)
        let job = try fixture.run("copy", ["who": "x; rm -rf /"])
        XCTAssertEqual(job.state, .succeeded, job.error ?? "")
        XCTAssertEqual(job.exit, ["code": 0])
        XCTAssertEqual(job.summary?["job"]?.stringValue, job.id.rawValue)
        XCTAssertEqual(job.summary?["attempt"], "1")
        XCTAssertEqual(job.summary?["params"], ["who": "x; rm -rf /"], "the value reached the program as one argument and in HERALD_PARAMS")
        XCTAssertEqual(job.summary?["unbuffered"], "1")
        // Progress is sampled like any job's (a value can be overtaken before it is sent); the last
        // value always goes out, and a line without a message keeps the last message.
        let progress = fixture.recorder.progress(of: job.id)
        XCTAssertEqual(progress.last.map { [$0.completed, $0.total] }, [3, 4], "\(progress)")
        XCTAssertEqual(progress.last?.message, "copying photos")
        XCTAssertEqual(fixture.recorder.results(of: job.id), [["file": "a.jpg"]])
        let lines = logLines(fixture, job.id)
        XCTAssertEqual(lines.filter { $0.stream == .stdout }.map(\.text), ["starting copy"], "protocol lines are not log lines")
        XCTAssertEqual(lines.filter { $0.stream == .stderr }.map(\.text), ["warning: slow disk"])
    }

    func testItemsAreCappedLikeSearchMatches() throws {
        let (kind, _) = try kind("many", script: #"echo '{"items": [1, 2, 3]}'; echo '{"items": [4]}'"#)
        let fixture = makeFixture(testConfiguration(), runners: [CommandRunner(kind)], maxSearchResults: 2)
        let job = try fixture.run("many", [:])
        XCTAssertEqual(job.state, .succeeded)
        XCTAssertEqual(fixture.recorder.results(of: job.id), [1, 2], "at most --max-results items are streamed")
    }

    func testAFailingProgramNamesItsExitStatusAndLastStderrLine() throws {
        let (kind, _) = try kind("fail", script: "echo 'first' >&2\necho 'disk full' >&2\nexit 3\n")
        let job = try fixture(kind).run("fail", [:])
        XCTAssertEqual(job.state, .failed)
        XCTAssertEqual(job.error, "exit status 3: disk full")
        XCTAssertEqual(job.exit, ["code": 3])
    }

    func testAProgramKilledByASignalSaysWhich() throws {
        let (kind, _) = try kind("crash", script: "kill -KILL $$\n")
        let job = try fixture(kind).run("crash", [:])
        XCTAssertEqual(job.state, .failed)
        XCTAssertEqual(job.error, "killed by signal KILL")
        XCTAssertEqual(job.exit, ["signal": "KILL"])
    }

    func testATqdmStylePercentageMovesTheBar() throws {
        let (kind, _) = try kind("tqdm", script: #"printf ' 45%%|████▌     | 45/100 [00:01<00:01]\r'; printf ' 90%%|█████████ | 90/100\n'"#)
        let fixture = fixture(kind)
        let job = try fixture.run("tqdm", [:])
        XCTAssertEqual(job.state, .succeeded)
        let fractions = fixture.recorder.progress(of: job.id).map(\.completed)
        XCTAssertEqual(fractions.last, 900, "\(fractions)")
    }

    func testDescriptor3CarriesTheProtocolAndStdoutIsOnlyLog() throws {
        let (kind, _) = try kind(
            "fd3", script: #"echo '{"progress": 0.5}' >&3; echo '{"progress": 0.9}'; echo '{"result": {"ok": true}}' >&3"#
        ) { $0.progressFrom = .fd3 }
        let fixture = fixture(kind)
        let job = try fixture.run("fd3", [:])
        XCTAssertEqual(job.state, .succeeded, job.error ?? "")
        XCTAssertEqual(job.summary, ["ok": true])
        XCTAssertEqual(fixture.recorder.progress(of: job.id).map(\.completed).last, 500)
        XCTAssertEqual(logLines(fixture, job.id).map(\.text), [#"{"progress": 0.9}"#], "stdout is not trusted with the protocol")
    }

    func testTimeoutEndsTheProgram() throws {
        let (kind, _) = try kind("slow", script: "echo started\nsleep 30\n") { $0.timeout = 0.5 }
        let started = Date()
        let job = try fixture(kind).run("slow", [:])
        XCTAssertEqual(job.state, .failed)
        XCTAssertEqual(job.error, "timed out after 0.5 s")
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "not the program's 30 s")
    }

    func testCancelKillsTheWholeGroupEvenAGrandchildThatIgnoresSIGTERM() throws {
        let (kind, folder) = try kind(
            "tree",
            script: """
                sh -c 'trap "" TERM; echo $$ > "\(FileManager.default.temporaryDirectory.path)/$HERALD_JOB_ID.pid"; while :; do sleep 1; done' &
                echo '{"progress": 0.1}'
                wait
                """
        ) { $0.grace = 0.5 }
        _ = folder
        let fixture = fixture(kind)
        let job = try fixture.start("tree", [:]).get()
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("\(job.id.rawValue).pid")
        defer { try? FileManager.default.removeItem(at: pidFile) }
        XCTAssertTrue(fixture.recorder.waitFor("the job reports progress") { _ in !fixture.recorder.progress(of: job.id).isEmpty })
        func writtenPid() -> pid_t? {
            (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        // The file appears before its contents: wait for a whole number in it.
        XCTAssertTrue(fixture.recorder.waitFor("the grandchild wrote its pid") { _ in writtenPid() != nil })
        let grandchild = try XCTUnwrap(writtenPid())
        XCTAssertEqual(kill(grandchild, 0), 0, "the grandchild runs")
        _ = try fixture.dispatcher.cancel(job.id.rawValue).get()
        XCTAssertEqual(fixture.recorder.waitForTerminal(job.id)?.state, .cancelled)
        // Cancelled only once nothing of the group is left: the grandchild is gone (or a zombie
        // nobody has reaped yet, which /proc shows as state Z).
        let alive = kill(grandchild, 0) == 0
        let state = (try? String(contentsOfFile: "/proc/\(grandchild)/stat", encoding: .utf8))
            .flatMap { $0.split(separator: ")").last?.split(separator: " ").first }
        XCTAssertTrue(!alive || state == "Z", "the grandchild that ignored SIGTERM was killed (state \(state ?? "gone"))")
    }

    func testAFloodOfOutputIsBoundedAndTheJobStillEnds() throws {
        // 200,000 lines as fast as the program can write them: streamed in batches of at most
        // 1,000 lines, the rest counted as skipped.
        let (kind, _) = try kind("flood", script: "seq 1 200000\n")
        let fixture = fixture(kind)
        let job = try fixture.run("flood", [:], timeout: 60)
        XCTAssertEqual(job.state, .succeeded)
        var streamed = 0
        var skipped = 0
        var misnumbered: [String] = []
        for event in fixture.recorder.events {
            if case .log(let id, let lines, let count, let first) = event.event, id == job.id {
                XCTAssertLessThanOrEqual(lines.count, CommandRunner.maxLinesPerBatch)
                // Each event says where its lines are in the whole output: `seq` wrote line n as n + 1.
                XCTAssertEqual(first, streamed + skipped, "an event begins where the last one (and what it skipped) ended")
                for (index, line) in lines.enumerated() where line.text != String(first + index + 1) {
                    misnumbered.append("\(first + index): \(line.text)")
                }
                streamed += lines.count
                skipped += count
            }
        }
        XCTAssertEqual(streamed + skipped, 200_000, "every line is either streamed or counted")
        XCTAssertEqual(misnumbered.prefix(5), [], "a streamed line is the line its number names")
        // The kept log (the last 10,000 lines) pages with the same numbers.
        let page = try fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 3).get()
        XCTAssertEqual(page.first, 190_000)
        XCTAssertEqual(page.values.compactMap { $0["text"]?.stringValue }, ["190001", "190002", "190003"])
    }

    func testAProgramThatVanishedFailsTheJobAndNothingElse() throws {
        let (kind, folder) = try kind("gone", script: "true\n")
        let fixture = fixture(kind)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("gone.sh"))
        let job = try fixture.run("gone", [:])
        XCTAssertEqual(job.state, .failed)
        XCTAssertTrue(job.error?.contains("is no longer an executable file") == true, job.error ?? "")
    }

    func testTheSnapshotListsTheKindWithItsParamsAndLimits() throws {
        let (kind, _) = try kind("described", script: "true\n", params: [("n", ParamSchema(type: .integer))]) {
            $0.title = "Described"
        }
        let snapshot = fixture(kind).dispatcher.snapshot()
        let entry = snapshot.limits["kinds"]?["described"]
        XCTAssertEqual(entry?["title"], "Described")
        XCTAssertEqual(entry?["params"]?["n"]?["type"], "integer")
        XCTAssertNotNil(entry?["maxConcurrent"])
    }
}

/// A failed attempt with attempts left runs again, counted in `attempt`; a cancel never does.
final class CommandRetryTests: XCTestCase {
    private func kind(_ name: String, _ script: String, retries: Int) throws -> CommandKind {
        let folder = makeTemporaryDirectory().url
        let path = folder.appendingPathComponent("\(name).sh")
        try ("#!/bin/sh\n" + script).write(to: path, atomically: true, encoding: .utf8)
        chmod(path.path, 0o755)
        var kind = CommandKind(name: JobKind(name), title: name, command: [path.path])
        kind.retries = retries
        kind.retryDelay = 0
        kind.grace = 1
        return kind
    }

    func testFailedAttemptsAreRetriedUntilOneSucceeds() throws {
        let flaky = try kind("flaky", #"[ "$HERALD_ATTEMPT" -ge 3 ] || { echo "attempt $HERALD_ATTEMPT broke" >&2; exit 1; }"#, retries: 2)
        let fixture = makeFixture(testConfiguration(), runners: [CommandRunner(flaky)])
        let job = try fixture.run("flaky", [:])
        XCTAssertEqual(job.state, .succeeded, job.error ?? "")
        XCTAssertEqual(job.attempt, 3)
        let states = fixture.recorder.events.compactMap { $0.jobRecord }.filter { $0.id == job.id }.map {
            "\($0.state.rawValue)#\($0.attempt ?? 0)"
        }
        XCTAssertEqual(states, ["queued#0", "running#1", "queued#1", "running#2", "queued#2", "running#3", "succeeded#3"])
        let retrying = fixture.recorder.events.compactMap { $0.jobRecord }.first {
            $0.id == job.id && $0.state == .queued && $0.attempt == 1
        }
        XCTAssertTrue(
            retrying?.error?.hasPrefix("attempt 1 failed: exit status 1: attempt 1 broke; retrying in") == true, retrying?.error ?? "")
        XCTAssertEqual(fixture.dispatcher.currentStatistics().retries, 2)
    }

    func testAttemptsRunOutAndTheJobFails() throws {
        let broken = try kind("broken", "exit 2\n", retries: 1)
        let job = try makeFixture(testConfiguration(), runners: [CommandRunner(broken)]).run("broken", [:])
        XCTAssertEqual(job.state, .failed)
        XCTAssertEqual(job.attempt, 2)
        XCTAssertEqual(job.error, "exit status 2")
    }

    func testACancelIsNotRetried() throws {
        let slow = try kind("slow", "echo '{\"progress\": 0.1}'\nsleep 30\n", retries: 5)
        let fixture = makeFixture(testConfiguration(), runners: [CommandRunner(slow)])
        let job = try fixture.start("slow", [:]).get()
        XCTAssertTrue(fixture.recorder.waitFor("the job runs") { _ in !fixture.recorder.progress(of: job.id).isEmpty })
        _ = try fixture.dispatcher.cancel(job.id.rawValue).get()
        let done = fixture.recorder.waitForTerminal(job.id)
        XCTAssertEqual(done?.state, .cancelled)
        XCTAssertEqual(done?.attempt, 1)
    }

    func testADependentWaitsForTheFinalOutcome() throws {
        let flaky = try kind("flaky", #"[ "$HERALD_ATTEMPT" -ge 2 ] || exit 1"#, retries: 1)
        let after = try kind("after", "true\n", retries: 0)
        let fixture = makeFixture(testConfiguration(), runners: [CommandRunner(flaky), CommandRunner(after)])
        let first = try fixture.start("flaky", [:]).get()
        let second = try fixture.dispatcher.start(StartRequest(kind: "after", after: [first.id.rawValue])).get()
        XCTAssertEqual(fixture.recorder.waitForTerminal(second.id)?.state, .succeeded, "not cancelled by the first attempt's failure")
        XCTAssertEqual(fixture.dispatcher.job(first.id.rawValue)?.attempt, 2)
    }

    func testTheDelayDoublesIsCappedAndJittered() {
        let policy = RetryPolicy(retries: 10, delay: 5)
        XCTAssertEqual(policy.delay(after: 1, jitter: 0), 5)
        XCTAssertEqual(policy.delay(after: 3, jitter: 0), 20)
        XCTAssertEqual(policy.delay(after: 10, jitter: 0), 600, "at most ten minutes")
        XCTAssertEqual(policy.delay(after: 1, jitter: 1), 5.5, accuracy: 1e-9)
        XCTAssertEqual(policy.delay(after: 1, jitter: -1), 4.5, accuracy: 1e-9)
    }
}

/// A command job keeps its last 10,000 output lines for paging: in memory while it runs, in the data
/// folder afterwards, across its attempts.
final class CommandLogTests: XCTestCase {
    private func kind(_ name: String, _ script: String, configure: (inout CommandKind) -> Void = { _ in }) throws -> CommandKind {
        let folder = makeTemporaryDirectory().url
        let path = folder.appendingPathComponent("\(name).sh")
        try ("#!/bin/sh\n" + script).write(to: path, atomically: true, encoding: .utf8)
        chmod(path.path, 0o755)
        var kind = CommandKind(name: JobKind(name), title: name, command: [path.path])
        kind.grace = 1
        configure(&kind)
        return kind
    }

    func testTheLastTenThousandLinesArePagedAfterTheJobEnded() throws {
        let noisy = try kind("noisy", "seq 1 12000\necho 'the end' >&2\n")
        let fixture = makeFixture(testConfiguration(), runners: [CommandRunner(noisy)])
        let job = try fixture.run("noisy", [:])
        XCTAssertEqual(job.state, .succeeded)
        let first = try fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 2).get()
        XCTAssertTrue(first.isLog)
        XCTAssertEqual(first.total, 10_000, "the last 10,000 lines")
        XCTAssertEqual(first.first, 2001, "12,001 lines written: the kept ones start at line 2,001 (from 0)")
        XCTAssertEqual(first.values, [["stream": "stdout", "text": "2002"], ["stream": "stdout", "text": "2003"]])
        let last = try fixture.dispatcher.page(job: job.id.rawValue, offset: 9_999, limit: 10).get()
        XCTAssertEqual(last.values, [["stream": "stderr", "text": "the end"]])
        // Written to the data folder, and read from there once written.
        let file = fixture.data.appendingPathComponent("logs/\(job.id.rawValue).jsonl")
        XCTAssertTrue(fixture.recorder.waitFor("the log file is written") { _ in FileManager.default.fileExists(atPath: file.path) })
        XCTAssertTrue(
            fixture.recorder.waitFor("pages come from the file, which remembers the first line's number") { _ in
                let page = try? fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 1).get()
                return page?.values == [["stream": "stdout", "text": "2002"]] && page?.first == 2001
            })
    }

    func testARunningJobIsPagedAndAttemptsShareOneLog() throws {
        let flaky = try kind("flaky", #"echo "attempt $HERALD_ATTEMPT"; [ "$HERALD_ATTEMPT" -ge 2 ] || exit 1"#) {
            $0.retries = 1
            $0.retryDelay = 0
        }
        let fixture = makeFixture(testConfiguration(), runners: [CommandRunner(flaky)])
        let job = try fixture.run("flaky", [:])
        XCTAssertEqual(job.state, .succeeded)
        let page = try fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 10).get()
        XCTAssertEqual(page.values.map { $0["text"] }, ["attempt 1", "attempt 2"])
    }

    func testABuiltInJobHasNoLogPage() throws {
        let fixture = makeFixture(runnerConfiguration())
        _ = fixture.write("a.txt", "needle\n")
        let job = try fixture.run(.search, ["query": "needle"])
        XCTAssertFalse(try fixture.dispatcher.page(job: job.id.rawValue, offset: 0, limit: 10).get().isLog)
    }
}
