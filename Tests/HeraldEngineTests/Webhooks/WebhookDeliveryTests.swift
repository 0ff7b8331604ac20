import Foundation
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// A delivery's body, its line in the pending file (read back whole), and what the status shows.
final class WebhookDeliveryTests: XCTestCase {
    private func ended() -> JobRecord {
        var record = JobRecord(id: JobID("j-7"), kind: "backup", params: ["src": "/srv"], createdAt: 1_000)
        try! record.move(to: .running)
        record.startedAt = 2_000
        try! record.move(to: .failed)
        record.finishedAt = 14_500
        record.error = "timed out after 12 s"
        return record
    }

    func testTheBody() throws {
        let body = WebhookPayload.body(
            record: ended(), event: .timedOut, jobLink: "http://127.0.0.1:8080/api/jobs/", now: 1_765_000_000_123)
        let value = try JSONParser.parse(body, maxDepth: 16)
        XCTAssertEqual(value["type"]?.stringValue, "job.timedOut")
        XCTAssertEqual(value["timestamp"]?.stringValue, "2025-12-06T05:46:40.123Z")
        XCTAssertEqual(value["data"]?["job"], ended().json, "the job object of the protocol")
        XCTAssertEqual(value["data"]?["durationSeconds"]?.doubleValue, 12.5)
        XCTAssertEqual(value["data"]?["url"]?.stringValue, "http://127.0.0.1:8080/api/jobs/j-7")
        let neverRan = WebhookPayload.body(
            record: JobRecord(id: JobID("j-8"), kind: "k", params: [:], state: .cancelled, createdAt: 1), event: .cancelled, jobLink: nil,
            now: 0)
        let parsed = try JSONParser.parse(neverRan, maxDepth: 16)
        XCTAssertEqual(parsed["data"]?["durationSeconds"], .null)
        XCTAssertEqual(parsed["data"]?["url"], .null)
    }

    func testThePendingFileKeepsEveryDeliveryWithItsIdAndNoSecret() throws {
        let folder = makeTemporaryDirectory()
        let file = PendingDeliveriesFile(url: folder.url.appendingPathComponent("webhooks/pending.json"))
        XCTAssertEqual(file.load().deliveries, [], "no file: nothing pending")
        var first = WebhookDelivery(
            id: WebhookDelivery.newID(), webhook: "https://hooks.example/a?token=t", job: JobID("j-7"), event: .timedOut,
            body: Array(#"{"type":"job.timedOut","data":{"note":"ünïcode"}}"#.utf8), createdAt: 5)
        first.attempts = 3
        first.nextAttemptAt = 99
        first.lastOutcome = "HTTP 503"
        let second = WebhookDelivery(
            id: WebhookDelivery.newID(), webhook: "https://hooks.example/b", job: JobID("j-8"), event: .succeeded, body: Array("{}".utf8),
            createdAt: 6)
        try file.save([first, second])
        let (loaded, problem) = file.load()
        XCTAssertNil(problem)
        XCTAssertEqual(loaded, [first, second])
        XCTAssertTrue(first.id.hasPrefix("msg_") && first.id != second.id)

        try Data("{not json".utf8).write(to: file.url)
        let broken = file.load()
        XCTAssertEqual(broken.deliveries, [])
        XCTAssertTrue(broken.problem?.contains("cannot be read") == true)
    }

    func testTheStatusKeepsTheNewestAndEveryPendingOne() {
        var status = WebhookStatus(webhook: "https://hooks.example/x?token=secret#f")
        let stuck = WebhookDelivery(id: "msg_stuck", webhook: status.webhook, job: JobID("j-0"), event: .failed, body: [], createdAt: 0)
        status.note(stuck)
        for index in 1...30 {
            var delivery = WebhookDelivery(
                id: "msg_\(index)", webhook: status.webhook, job: JobID("j-\(index)"), event: .succeeded, body: [], createdAt: Int64(index))
            delivery.status = .delivered
            status.note(delivery)
        }
        XCTAssertEqual(status.recent.count, WebhookStatus.recentLimit)
        XCTAssertEqual(status.recent.first?.id, "msg_30")
        XCTAssertTrue(status.recent.contains { $0.id == "msg_stuck" }, "a pending delivery stays listed")
        let json = status.json
        XCTAssertEqual(json["webhook"]?.stringValue, "https://hooks.example/x", "no query: it may hold a token")
        XCTAssertEqual(json["pending"]?.intValue, 1)
        XCTAssertNil(json["deliveries"]?.arrayValue?.first?["body"], "bodies are not shown")
    }
}
