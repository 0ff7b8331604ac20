import XCTest

@testable import HeraldEngine

/// A schedule's standing alone: which occurrences are due at a given time (on time, missed and
/// caught up, paused, jittered) and what an occurrence does while the schedule's job runs.
final class ScheduleStandingTests: XCTestCase {
    private func declaration(_ fields: String) throws -> ScheduleDeclaration {
        let text = "{\"kinds\": {\"k\": {\"command\": [\"/bin/true\"]}}, \"schedules\": {\"s\": {\"kind\": \"k\", " + fields + "}}}"
        return try XCTUnwrap(JobsFile.parseContents(Array(text.utf8), file: "jobs.json", searchPath: "/usr/bin:/bin").schedules.first)
    }

    private func standing(_ fields: String, last: String) throws -> ScheduleStanding {
        ScheduleStanding(declaration: try declaration(fields), paused: false, lastOccurrence: ScheduleTesting.instant(last))
    }

    private let t = ScheduleTesting.instant

    func testAnOccurrenceIsDueOnceItsTimeHasComeAndOnlyOnce() throws {
        var standing = try standing(#""every": "10s""#, last: "2026-06-01T12:00:00Z")
        XCTAssertEqual(standing.due(now: t("2026-06-01T12:00:09Z")).occurrences, [])
        XCTAssertEqual(standing.due(now: t("2026-06-01T12:00:10Z")).occurrences, [t("2026-06-01T12:00:10Z")])
        XCTAssertEqual(standing.due(now: t("2026-06-01T12:00:10Z")).occurrences, [], "never twice")
        XCTAssertEqual(
            standing.due(now: t("2026-06-01T12:00:31Z")).occurrences, [t("2026-06-01T12:00:20Z"), t("2026-06-01T12:00:30Z")],
            "a late look (under the grace) fires each occurrence it finds")
        XCTAssertEqual(standing.lastOccurrence, t("2026-06-01T12:00:30Z"))
    }

    func testMissedOccurrencesFollowCatchUp() throws {
        for (policy, expected, missed) in [
            (#""catchUp": "none""#, [String](), 3), (#""catchUp": "one""#, ["2026-06-01T03:00:00Z"], 2),
            (#""catchUp": "all", "catchUpLimit": 2"#, ["2026-06-01T02:00:00Z", "2026-06-01T03:00:00Z"], 1),
        ] {
            var standing = try standing(#""cron": "0 * * * *", "# + policy, last: "2026-06-01T00:00:00Z")
            // Down from 00:30 to 03:30: 01:00, 02:00 and 03:00 were missed; 03:30 is now.
            let due = standing.due(now: t("2026-06-01T03:30:00Z"))
            XCTAssertEqual(due.occurrences, expected.map(t), policy)
            XCTAssertEqual(due.missed, missed, policy)
            XCTAssertEqual(standing.missed, missed, policy)
            XCTAssertEqual(standing.due(now: t("2026-06-01T04:00:00Z")).occurrences, [t("2026-06-01T04:00:00Z")], policy)
        }
    }

    func testAPausedScheduleHasNothingDue() throws {
        var standing = try standing(#""every": "10s""#, last: "2026-06-01T12:00:00Z")
        standing.paused = true
        XCTAssertEqual(standing.due(now: t("2026-06-01T12:05:00Z")).occurrences, [])
        XCTAssertEqual(standing.lastOccurrence, t("2026-06-01T12:00:00Z"))
    }

    func testJitterDelaysEachOccurrenceByTheSameAmountEverywhere() throws {
        let jittered = try standing(#""cron": "0 * * * *", "jitter": 600"#, last: "2026-06-01T00:00:00Z")
        let occurrence = t("2026-06-01T01:00:00Z")
        let delay = jittered.jitter(of: occurrence)
        XCTAssertTrue((0..<600).contains(delay))
        XCTAssertEqual(try standing(#""cron": "0 * * * *", "jitter": 600"#, last: "2026-01-01T00:00:00Z").jitter(of: occurrence), delay)
        let delays = Set((0..<24).map { jittered.jitter(of: occurrence + Int64($0) * 3600) })
        XCTAssertGreaterThan(delays.count, 1, "occurrences are spread, not all delayed alike")
        var waiting = jittered
        XCTAssertEqual(waiting.due(now: occurrence + delay - 1).occurrences, [])
        XCTAssertEqual(waiting.due(now: occurrence + delay).occurrences, [occurrence])
    }

    func testOverlapDecidesWhatAnOccurrenceDoesWhileTheLastJobRuns() throws {
        for (overlap, expected) in [("skip", ScheduleStanding.Step.skip), ("queue", .wait), ("replace", .replace(JobID("j-run")))] {
            var standing = try standing(#""every": "10s", "overlap": ""# + overlap + #"""#, last: "2026-06-01T12:00:00Z")
            XCTAssertEqual(standing.step(), .start, "nothing runs: \(overlap) starts")
            standing.running = JobID("j-run")
            XCTAssertEqual(standing.step(), expected, overlap)
        }
        var full = try standing(#""every": "10s", "overlap": "queue""#, last: "2026-06-01T12:00:00Z")
        full.running = JobID("j-run")
        full.queued = Array(repeating: 0, count: ScheduleStanding.queuedKept)
        XCTAssertEqual(full.step(), .skip, "a full queue skips")
    }
}
