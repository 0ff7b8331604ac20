import HeraldCrypto
import HeraldEngine
import HeraldWebhooks
import XCTest

/// The signature against Standard Webhooks' own example (the reference libraries' test: the same
/// secret, id, timestamp and body give the same `v1,` signature).
final class WebhookSignerTests: XCTestCase {
    func testStandardWebhooksExample() throws {
        let secret = try XCTUnwrap(WebhookSecret(text: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"))
        let signature = WebhookSigner.signature(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8), secret: secret)
        XCTAssertEqual(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    func testHeadersNameIDAndTimestamp() throws {
        let secret = WebhookSecret(key: [1, 2, 3])
        let headers = WebhookSigner.headers(id: "msg_1", timestamp: 42, body: Array("{}".utf8), secret: secret)
        XCTAssertEqual(headers.map(\.name), ["webhook-id", "webhook-timestamp", "webhook-signature"])
        XCTAssertEqual(headers[0].value, "msg_1")
        XCTAssertEqual(headers[1].value, "42")
        XCTAssertNotEqual(
            headers[2].value, WebhookSigner.signature(id: "msg_1", timestamp: 43, body: Array("{}".utf8), secret: secret),
            "the timestamp is signed")
    }
}
