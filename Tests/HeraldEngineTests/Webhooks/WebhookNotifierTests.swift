import Foundation
import HeraldSupport
import HeraldTestSupport
import XCTest

@testable import HeraldEngine

/// The dispatcher's notifier with a scripted transport and a `ManualClock`: the retry schedule is
/// followed to the second without sleeping, every attempt carries the delivery's one id, a
/// delivery is given up after the last attempt, and one left pending is resent after a restart.
final class WebhookNotifierTests: XCTestCase {
    struct QuickRunner: JobRunner {
        let kind: JobKind = "quick"
        func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject { params }
        func run(_ context: JobContext) throws -> JSONObject { [:] }
    }

    /// Records attempts and answers each with the next scripted outcome (the last one from then on),
    /// from another thread, as a real transport does.
    final class ScriptedTransport: WebhookTransport {
        let attempts = Locked<[WebhookAttempt]>([])
        let script: [WebhookAttemptOutcome]
        init(_ script: [WebhookAttemptOutcome]) { self.script = script }
        func send(_ attempt: WebhookAttempt, done: @escaping @Sendable (WebhookAttemptOutcome) -> Void) {
            let index = attempts.withLock { list in
                list.append(attempt)
                return list.count - 1
            }
            let outcome = script[min(index, script.count - 1)]
            DispatchQueue.global().async { done(outcome) }
        }
        var count: Int { attempts.withLock { $0.count } }
    }

    private static let url = "https://hooks.example/herald"

    private func fixture(
        clock: ManualClock, folder: TemporaryDirectory? = nil, wallClock: @escaping @Sendable () -> Int64 = WallClock.millis
    ) -> DispatcherFixture {
        var configuration = testConfiguration()
        configuration.webhooks = WebhookRules(everyJob: [
            NotifyEntry(on: [.succeeded], webhook: Self.url, secretFile: "s", secret: WebhookSecret(key: [7, 7, 7]))
        ])
        return makeFixture(configuration, runners: [QuickRunner()], folder: folder, clock: clock, wallClock: wallClock)
    }

    private func delivery(_ fixture: DispatcherFixture) -> WebhookDelivery? { fixture.dispatcher.webhookStatuses().first?.recent.first }

    /// Waits until the last attempt's answer has been taken (the next one is due, or none is).
    private func waitForAnswer(_ fixture: DispatcherFixture, attempts: Int, _ status: WebhookDelivery.Status = .pending) {
        _ = waitUntil("attempt \(attempts) answered", seen: { "\(String(describing: self.delivery(fixture)))" }) {
            guard let delivery = delivery(fixture), delivery.attempts == attempts, delivery.status == status else { return false }
            return status != .pending || delivery.nextAttemptAt != nil
        }
    }

    func testFailedAttemptsAreRetriedOnScheduleWithTheSameID() throws {
        let clock = ManualClock()
        let fixture = fixture(clock: clock)
        let transport = ScriptedTransport([.failed("HTTP 503"), .failed("connection refused"), .delivered(status: 204)])
        fixture.dispatcher.startWebhooks(transport: transport, jobLink: "http://127.0.0.1:1/api/jobs/")
        let job = try fixture.start("quick", [:]).get()
        XCTAssertEqual(fixture.recorder.waitForTerminal(job.id)?.state, .succeeded)
        waitForAnswer(fixture, attempts: 1)
        XCTAssertEqual(delivery(fixture)?.lastOutcome, "HTTP 503")

        clock.advance(by: 4.9)
        XCTAssertEqual(transport.count, 1, "the first retry waits 5 s")
        clock.advance(by: 0.2)
        XCTAssertEqual(transport.count, 2)
        waitForAnswer(fixture, attempts: 2)
        // The answer may have been taken while the clock stood at 5.0 or once it reached 5.1: the
        // second retry is due 30 s after that.
        clock.advance(by: 29.8)
        XCTAssertEqual(transport.count, 2, "the second waits 30 s")
        clock.advance(by: 0.3)
        waitForAnswer(fixture, attempts: 3, .delivered)

        let attempts = transport.attempts.withLock { $0 }
        XCTAssertEqual(Set(attempts.map(\.id)).count, 1, "one webhook-id")
        XCTAssertEqual(attempts.map(\.number), [1, 2, 3])
        XCTAssertEqual(Set(attempts.map(\.body)).count, 1, "one body")
        let body = try JSONParser.parse(attempts[0].body, maxDepth: 16)
        XCTAssertEqual(body["data"]?["url"]?.stringValue, "http://127.0.0.1:1/api/jobs/\(job.id.rawValue)")
        XCTAssertEqual(attempts[0].secret.key, [7, 7, 7])
        let status = try XCTUnwrap(fixture.dispatcher.webhookStatuses().first)
        XCTAssertEqual([status.delivered, status.retried, status.givenUp], [1, 2, 0])
        XCTAssertEqual(delivery(fixture)?.lastOutcome, "HTTP 204")
        XCTAssertEqual(fixture.dispatcher.currentStatistics().webhooks.retried, 2)
        let file = PendingDeliveriesFile(url: fixture.data.appendingPathComponent("webhooks/pending.json"))
        _ = waitUntil("the pending file to empty", seen: { "\(file.load().deliveries.map(\.id))" }) { file.load().deliveries.isEmpty }
    }

    func testADeliveryIsGivenUpAfterTheLastAttempt() throws {
        let clock = ManualClock()
        let fixture = fixture(clock: clock)
        let transport = ScriptedTransport([.failed("timed out after 10 s")])
        fixture.dispatcher.startWebhooks(transport: transport, jobLink: "/")
        let job = try fixture.start("quick", [:]).get()
        XCTAssertEqual(fixture.recorder.waitForTerminal(job.id)?.state, .succeeded)
        for attempt in 1..<WebhookBackoff.maxAttempts {
            waitForAnswer(fixture, attempts: attempt)
            clock.advance(by: try XCTUnwrap(WebhookBackoff().delay(afterAttempt: attempt)))
        }
        waitForAnswer(fixture, attempts: 10, .givenUp)
        clock.advance(by: 86_400)
        XCTAssertEqual(transport.count, 10, "nothing after the last attempt")
        let counts = fixture.dispatcher.currentStatistics().webhooks
        XCTAssertEqual([counts.delivered, counts.retried, counts.givenUp], [0, 9, 1])
        XCTAssertNil(delivery(fixture)?.nextAttemptAt)
    }

    func testAPendingDeliveryIsResentAfterARestartWithItsID() throws {
        let folder = makeTemporaryDirectory()
        let clock = ManualClock()
        let first = fixture(clock: clock, folder: folder)
        let failing = ScriptedTransport([.failed("HTTP 500")])
        first.dispatcher.startWebhooks(transport: failing, jobLink: "/")
        let job = try first.start("quick", [:]).get()
        XCTAssertEqual(first.recorder.waitForTerminal(job.id)?.state, .succeeded)
        waitForAnswer(first, attempts: 1)
        first.dispatcher.shutdown(grace: 0)

        let secondClock = ManualClock()
        let second = fixture(clock: secondClock, folder: folder)
        let listed = try XCTUnwrap(delivery(second), "listed before it is sent again")
        XCTAssertEqual(listed.attempts, 1)
        let working = ScriptedTransport([.delivered(status: 200)])
        second.dispatcher.startWebhooks(transport: working, jobLink: "/")
        _ = second.dispatcher.webhookStatuses()  // the start has run on the queue
        XCTAssertEqual(working.count, 0, "its next attempt is due 5 s after the first (by the wall clock)")
        secondClock.advance(by: 5.1)
        XCTAssertEqual(working.count, 1)
        let resent = try XCTUnwrap(working.attempts.withLock { $0.first })
        XCTAssertEqual(resent.id, failing.attempts.withLock { $0[0].id })
        XCTAssertEqual(resent.number, 2)
        XCTAssertEqual(resent.body, failing.attempts.withLock { $0[0].body })
        waitForAnswer(second, attempts: 2, .delivered)
    }

    func testAfterARestartOnAWallClockSteppedBackAPendingDeliveryWaitsOnlyItsBackoff() throws {
        let folder = makeTemporaryDirectory()
        let stopped: Int64 = 1_800_000_000_000
        let first = fixture(clock: ManualClock(), folder: folder, wallClock: { stopped })
        first.dispatcher.startWebhooks(transport: ScriptedTransport([.failed("HTTP 500")]), jobLink: "/")
        let job = try first.start("quick", [:]).get()
        XCTAssertEqual(first.recorder.waitForTerminal(job.id)?.state, .succeeded)
        waitForAnswer(first, attempts: 1)
        XCTAssertEqual(delivery(first)?.nextAttemptAt, stopped + 5_000)
        first.dispatcher.shutdown(grace: 0)

        // Back up with the wall clock an hour behind: by it, the retry is due in an hour and 5 s.
        let clock = ManualClock()
        let second = fixture(clock: clock, folder: folder, wallClock: { stopped - 3_600_000 })
        let working = ScriptedTransport([.delivered(status: 200)])
        second.dispatcher.startWebhooks(transport: working, jobLink: "/")
        _ = second.dispatcher.webhookStatuses()  // the start has run on the queue
        XCTAssertEqual(working.count, 0)
        clock.advance(by: 5.1)
        XCTAssertEqual(working.count, 1, "due after the 5 s the backoff says, not the hour the wall clock says")
    }

    func testEndsBeforeTheStartAreToldAtTheStart() throws {
        let fixture = fixture(clock: ManualClock())
        let job = try fixture.start("quick", [:]).get()
        XCTAssertEqual(fixture.recorder.waitForTerminal(job.id)?.state, .succeeded)
        let transport = ScriptedTransport([.delivered(status: 200)])
        fixture.dispatcher.startWebhooks(transport: transport, jobLink: "http://h/api/jobs/")
        waitForAnswer(fixture, attempts: 1, .delivered)
        XCTAssertEqual(transport.attempts.withLock { $0.map(\.number) }, [1])
    }

    func testAFileThatCannotBeWrittenIsReportedAndDeliveriesGoOn() throws {
        let folder = makeTemporaryDirectory()
        // A file where the folder should be: every write of the pending file fails, as on a full disk.
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("data"), withIntermediateDirectories: true)
        try Data().write(to: folder.url.appendingPathComponent("data/webhooks"))
        let fixture = fixture(clock: ManualClock(), folder: folder)
        let transport = ScriptedTransport([.delivered(status: 200)])
        fixture.dispatcher.startWebhooks(transport: transport, jobLink: "/")
        let job = try fixture.start("quick", [:]).get()
        XCTAssertEqual(fixture.recorder.waitForTerminal(job.id)?.state, .succeeded)
        waitForAnswer(fixture, attempts: 1, .delivered)
        let degraded = fixture.dispatcher.currentStatistics().degraded ?? ""
        XCTAssertTrue(degraded.contains("cannot write webhooks"), degraded)
        XCTAssertGreaterThan(fixture.dispatcher.currentStatistics().storageWriteFailures, 0)
    }

    func testTheMirrorSeesEveryChangeAndAnAdoptedDeliveryGoesOnWithItsIDAndCount() throws {
        let clock = ManualClock()
        let fixture = fixture(clock: clock)
        let mirrored = Locked<[[String]]>([])
        fixture.dispatcher.mirrorPendingDeliveries { deliveries in mirrored.withLock { $0.append(deliveries.map(\.id)) } }
        let transport = ScriptedTransport([.failed("HTTP 503"), .delivered(status: 200)])
        fixture.dispatcher.startWebhooks(transport: transport, jobLink: "/")
        _ = waitUntil("the first copy", seen: { "\(mirrored.withLock { $0 })" }) { mirrored.withLock { $0 } == [[]] }

        // Another node made it, tried it three times and stopped; its next attempt is overdue.
        var theirs = WebhookDelivery(
            id: "msg_0123456789abcdef0123456789abcdef", webhook: Self.url, job: JobID("j-elsewhere"), event: .failed,
            body: Array(#"{"type":"job.failed"}"#.utf8), createdAt: WallClock.millis() - 60_000)
        theirs.attempts = 3
        theirs.nextAttemptAt = WallClock.millis() - 1000
        theirs.lastOutcome = "connection refused"
        let unknown = WebhookDelivery(
            id: "msg_ffffffffffffffffffffffffffffffff", webhook: "https://elsewhere.example/hook", job: JobID("j-other"),
            event: .succeeded, body: [], createdAt: WallClock.millis())
        fixture.dispatcher.adoptDeliveries([theirs, unknown], from: "n9")
        _ = waitUntil("the adopted delivery's attempt", seen: { "\(transport.count) attempts" }) {
            clock.advance(by: 0.1)
            return transport.count == 1
        }
        let attempt = try XCTUnwrap(transport.attempts.withLock { $0.first })
        XCTAssertEqual(attempt.id, theirs.id, "the same webhook-id")
        XCTAssertEqual(attempt.body, theirs.body, "the same body")
        XCTAssertEqual(attempt.number, 4, "its count goes on")
        XCTAssertTrue(mirrored.withLock { $0 }.contains([theirs.id]), "in the mirror before its attempt")

        // Its attempt fails: the retry after attempt 4 is due 10 min later, then it is delivered.
        waitForAnswer(fixture, attempts: 4)
        clock.advance(by: 600.1)
        waitForAnswer(fixture, attempts: 5, .delivered)
        XCTAssertEqual(transport.count, 2, "the undeclared webhook's delivery is never attempted")
        XCTAssertFalse(fixture.dispatcher.webhookStatuses().flatMap(\.recent).contains { $0.id == unknown.id })
        _ = waitUntil("the mirror to empty", seen: { "\(mirrored.withLock { $0 })" }) { mirrored.withLock { $0.last } == [] }
    }
}
