import Foundation
import HeraldCrypto
import HeraldEngine

/// Standard Webhooks' headers for one attempt: `webhook-id`, `webhook-timestamp` (seconds since the
/// epoch, the time of this attempt) and `webhook-signature: v1,<base64 HMAC-SHA256 of
/// "id.timestamp.body">`, keyed with the secret's decoded bytes. Any thread.
public enum WebhookSigner {
    public static func signature(id: String, timestamp: Int64, body: [UInt8], secret: WebhookSecret) -> String {
        let message = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + Data(HMAC.sha256(key: secret.key, message: message)).base64EncodedString()
    }

    public static func headers(id: String, timestamp: Int64, body: [UInt8], secret: WebhookSecret) -> [(name: String, value: String)] {
        [
            ("webhook-id", id), ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", signature(id: id, timestamp: timestamp, body: body, secret: secret)),
        ]
    }
}
