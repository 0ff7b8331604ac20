import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// What a full disk costs in log lines and what `/healthz` is told, with time advanced by hand.
final class StorageHealthTests: XCTestCase {
    func testTheLogHearsOfFailuresOnceAMinuteNotOncePerWrite() {
        let time = Locked(0.0)
        let lines = Locked<[String]>([])
        let health = StorageHealth(logInterval: 60, now: { time.value }) { line in lines.withLock { $0.append(line) } }
        XCTAssertNil(health.problem)
        for _ in 0..<100 { health.failed("history", path: "/data/jobs.jsonl", "write failed: No space left on device") }
        XCTAssertEqual(lines.value.count, 1, "\(lines.value)")
        XCTAssertTrue(lines.value[0].contains("No space left on device"), lines.value[0])
        XCTAssertEqual(health.problem, "cannot write history to /data/jobs.jsonl: write failed: No space left on device")
        time.withLock { $0 = 59 }
        health.failed("history", path: "/data/jobs.jsonl", "write failed: No space left on device")
        XCTAssertEqual(lines.value.count, 1)
        time.withLock { $0 = 61 }
        health.failed("history", path: "/data/jobs.jsonl", "write failed: No space left on device")
        XCTAssertEqual(lines.value.count, 2)
        XCTAssertTrue(lines.value[1].contains("100 more failed write(s)"), lines.value[1])
        XCTAssertEqual(health.failures, 102)
    }

    func testANewKindOfFileIsToldAtOnceAndHealthReturnsWhenEveryKindWorks() {
        let lines = Locked<[String]>([])
        let health = StorageHealth(now: { 0 }) { line in lines.withLock { $0.append(line) } }
        health.failed("history", path: "/d/jobs.jsonl", "full")
        health.failed("logs", path: "/d/logs", "full")
        XCTAssertEqual(lines.value.count, 2, "each kind that starts failing is told")
        XCTAssertEqual(health.problem, "cannot write history to /d/jobs.jsonl: full; cannot write logs to /d/logs: full")
        health.succeeded("history")
        XCTAssertEqual(health.problem, "cannot write logs to /d/logs: full")
        XCTAssertEqual(lines.value.count, 2, "nothing to say while logs still fail")
        health.succeeded("logs")
        XCTAssertNil(health.problem)
        XCTAssertEqual(lines.value.count, 3)
        XCTAssertTrue(lines.value[2].contains("work again"), lines.value[2])
        health.succeeded("logs")
        XCTAssertEqual(lines.value.count, 3, "a write that works while nothing failed says nothing")
    }

    func testWhatWaitedAndWasDroppedClearsTheProblemWithoutClaimingWritesWork() {
        let lines = Locked<[String]>([])
        let health = StorageHealth(now: { 0 }) { line in lines.withLock { $0.append(line) } }
        health.failed("logs", path: "/d/logs", "full")
        health.abandoned("logs")
        XCTAssertNil(health.problem)
        XCTAssertEqual(lines.value.count, 1, "no line says writes work again: none did")
    }
}
