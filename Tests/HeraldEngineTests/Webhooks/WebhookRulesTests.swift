import XCTest

@testable import HeraldEngine

/// Which endings a job is told for, to whom, and how the retries are spaced.
final class WebhookRulesTests: XCTestCase {
    private func entry(_ url: String, _ on: Set<NotifyEvent>) -> NotifyEntry {
        NotifyEntry(on: on, webhook: url, secretFile: "s", secret: WebhookSecret(key: [1]))
    }

    private func record(_ kind: JobKind, _ state: JobState, error: String? = nil, schedule: String? = nil) -> JobRecord {
        var record = JobRecord(id: JobID("j-1"), kind: kind, params: [:], createdAt: 1)
        if state != .queued {
            if state != .cancelled { try! record.move(to: .running) }
            try! record.move(to: state)
        }
        record.error = error
        record.schedule = schedule
        return record
    }

    func testTheEventOfAnEnding() {
        XCTAssertEqual(NotifyEvent.of(record("k", .succeeded)), .succeeded)
        XCTAssertEqual(NotifyEvent.of(record("k", .failed, error: "exit code 1")), .failed)
        XCTAssertEqual(NotifyEvent.of(record("k", .failed, error: "timed out after 0.5 s")), .timedOut)
        XCTAssertEqual(NotifyEvent.of(record("k", .failed, error: "it said: timed out after 3 s")), .failed, "only the timeout's own words")
        XCTAssertEqual(NotifyEvent.of(record("k", .cancelled)), .cancelled)
        XCTAssertNil(NotifyEvent.of(record("k", .queued)))
        XCTAssertNil(NotifyEvent.of(record("k", .interrupted)), "interrupted jobs are not told")
    }

    func testFailedHearsTimeoutsButNotTheOtherWayRound() {
        XCTAssertTrue(entry("a", [.failed]).hears(.timedOut))
        XCTAssertTrue(entry("a", [.failed]).hears(.failed))
        XCTAssertTrue(entry("a", [.timedOut]).hears(.timedOut))
        XCTAssertFalse(entry("a", [.timedOut]).hears(.failed))
        XCTAssertFalse(entry("a", [.succeeded, .cancelled]).hears(.failed))
    }

    func testAJobIsToldToEachMatchingWebhookOnce() {
        let rules = WebhookRules(
            everyJob: [entry("https://all", [.failed]), entry("https://shared", [.succeeded])],
            byKind: ["backup": [entry("https://shared", [.succeeded, .failed]), entry("https://kind", [.timedOut])]],
            bySchedule: ["nightly": [entry("https://schedule", [.failed])]])
        func told(_ record: JobRecord) -> [String] { rules.webhooks(for: record, event: NotifyEvent.of(record)!).map(\.webhook) }
        XCTAssertEqual(told(record("backup", .succeeded)), ["https://shared"], "two entries, one webhook: one delivery")
        XCTAssertEqual(told(record("backup", .failed, error: "timed out after 1 s")), ["https://all", "https://shared", "https://kind"])
        XCTAssertEqual(told(record("backup", .failed, schedule: "nightly")), ["https://all", "https://shared", "https://schedule"])
        XCTAssertEqual(told(record("other", .failed)), ["https://all"], "another kind hears only every job's entries")
        XCTAssertEqual(told(record("other", .cancelled)), [])
        XCTAssertEqual(rules.webhooks.map(\.webhook), ["https://all", "https://shared", "https://kind", "https://schedule"])
    }

    func testTheRetrySchedule() {
        let backoff = WebhookBackoff()
        XCTAssertEqual(WebhookBackoff.maxAttempts, 10)
        XCTAssertEqual((1...9).compactMap { backoff.delay(afterAttempt: $0) }, [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800])
        XCTAssertNil(backoff.delay(afterAttempt: 10), "the tenth attempt is the last")
        XCTAssertNil(backoff.delay(afterAttempt: 0))
        let hours = (1...9).compactMap { backoff.delay(afterAttempt: $0) }.reduce(0, +) / 3600
        XCTAssertEqual(hours, 15.7, accuracy: 0.05, "the last attempt comes hours later")
        XCTAssertEqual(WebhookBackoff(scale: 0.001).delay(afterAttempt: 2), 0.03)
    }
}
