import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// A worker's side of one attempt (`herald work`): the program runs as a command job does, and what
/// happens comes out as worker messages; cancel ends the process group; abandon says nothing more.
final class AssignedRunTests: XCTestCase {
    /// Every report, in order. Thread: any (locked).
    final class Reports: Sendable {
        private let store = Locked<[WorkerReport]>([])
        var all: [WorkerReport] { store.withLock { $0 } }
        var send: @Sendable (WorkerReport) -> Void { { [store] report in store.withLock { $0.append(report) } } }
    }

    private func kind(_ script: String) throws -> CommandKind {
        let path = makeTemporaryDirectory().url.appendingPathComponent("run.sh")
        try ("#!/bin/sh\n" + script).write(to: path, atomically: true, encoding: .utf8)
        chmod(path.path, 0o755)
        var kind = CommandKind(
            name: JobKind("encode"), title: "Encode", command: [path.path, "{n}"], params: [("n", ParamSchema(type: .integer))])
        kind.grace = 1
        return kind
    }

    func testAProgramsProgressLinesAndResultBecomeWorkerMessages() throws {
        let definition = try kind(
            #"""
            echo "frame 1 of $1"
            echo '{"completed": 1, "total": 2, "message": "half"}'
            echo "attempt $HERALD_ATTEMPT" >&2
            echo '{"result": {"frames": 2}}'
            """#)
        let reports = Reports()
        let run = try AssignedRun(job: JobID("j-a"), attempt: 3, definition: definition, params: ["n": 2], report: reports.send)
        run.start()
        waitUntil("the run ends", seen: { "\(reports.all)" }) { run.isFinished }
        let all = reports.all
        XCTAssertEqual(all.last, .result(job: JobID("j-a"), attempt: 3, summary: ["frames": 2]))
        let lines = all.flatMap { report -> [LogLine] in
            if case .log(_, 3, let lines, _) = report { return lines }
            return []
        }
        XCTAssertEqual(lines, [LogLine(stream: .stdout, text: "frame 1 of 2"), LogLine(stream: .stderr, text: "attempt 3")])
        XCTAssertTrue(all.contains(.progress(job: JobID("j-a"), attempt: 3, JobProgress(completed: 1, total: 2, message: "half"))))
        XCTAssertTrue(all.allSatisfy { $0.target?.attempt == 3 && $0.target?.job == JobID("j-a") }, "every message names the attempt")
    }

    func testParamsAreCheckedAgainstTheWorkersOwnDeclaration() throws {
        let definition = try kind("true")
        XCTAssertThrowsError(try AssignedRun(job: JobID("j-a"), attempt: 1, definition: definition, params: ["n": "two"], report: { _ in }))
    }

    func testCancelEndsTheProcessGroupThenSaysCancelled() throws {
        let definition = try kind(
            #"""
            echo '{"completed": 0, "total": 1}'
            sleep 30 &
            wait
            """#)
        let reports = Reports()
        let run = try AssignedRun(job: JobID("j-b"), attempt: 1, definition: definition, params: ["n": 1], report: reports.send)
        run.start()
        waitUntil("the first progress", seen: { "\(reports.all)" }) { !reports.all.isEmpty }
        run.cancel()
        waitUntil("the run ends", seen: { "\(reports.all)" }) { run.isFinished }
        guard case .fail(JobID("j-b"), 1, _, _, let cancelled)? = reports.all.last else { return XCTFail("no fail: \(reports.all)") }
        XCTAssertTrue(cancelled)
    }

    func testAnAbandonedRunEndsAndSaysNothingMore() throws {
        let definition = try kind(
            #"""
            echo '{"completed": 0, "total": 1}'
            sleep 30
            """#)
        let reports = Reports()
        let run = try AssignedRun(job: JobID("j-c"), attempt: 1, definition: definition, params: ["n": 1], report: reports.send)
        run.start()
        waitUntil("the first progress", seen: { "\(reports.all)" }) { !reports.all.isEmpty }
        let before = reports.all.count
        run.abandon()
        waitUntil("the run ends", seen: { "\(reports.all)" }) { run.isFinished }
        XCTAssertEqual(reports.all.count, before, "nothing after lease_lost: the server would refuse it anyway")
    }
}
