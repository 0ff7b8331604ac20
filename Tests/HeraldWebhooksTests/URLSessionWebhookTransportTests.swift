import Foundation
import HeraldEngine
import HeraldTestSupport
import HeraldWebhooks
import XCTest

/// The URLSession transport's failures, on sockets this test holds on 127.0.0.1: a port bound but not
/// listening refuses the connection; one listening that never accepts nor answers runs out the
/// attempt's time. (Deliveries, signatures and redirects against a real receiver:
/// Tests/blackbox/test_webhooks.py.)
final class URLSessionWebhookTransportTests: XCTestCase {
    private func outcome(of transport: URLSessionWebhookTransport, port: Int) -> WebhookAttemptOutcome? {
        let answer = Locked<WebhookAttemptOutcome?>(nil)
        transport.send(
            WebhookAttempt(
                id: "msg_test", url: "http://127.0.0.1:\(port)/hook", body: Array("{}".utf8), secret: WebhookSecret(key: [1]), number: 1)
        ) { outcome in answer.withLock { $0 = outcome } }
        _ = waitUntil("the attempt's outcome", timeout: 20, seen: { "none" }) { answer.withLock { $0 != nil } }
        return answer.withLock { $0 }
    }

    func testARefusedConnectionFails() throws {
        let (descriptor, port) = try Loopback.boundSocket()
        defer { close(descriptor) }
        XCTAssertEqual(outcome(of: URLSessionWebhookTransport(timeout: 5), port: port), .failed("connection refused"))
    }

    func testAReceiverThatNeverAnswersTimesOut() throws {
        let (descriptor, port) = try Loopback.boundSocket()
        defer { close(descriptor) }
        XCTAssertEqual(listen(descriptor, 8), 0)
        let started = Date()
        XCTAssertEqual(outcome(of: URLSessionWebhookTransport(timeout: 1), port: port), .failed("timed out after 1 s"))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.95, "not before its time")
    }
}
