/// One HTTP attempt of a delivery, as the notifier hands it to a transport: the transport signs it
/// (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`) and POSTs it.
public struct WebhookAttempt: Sendable {
    /// The delivery's `webhook-id`: the same on every attempt.
    public let id: String
    public let url: String
    public let body: [UInt8]
    public let secret: WebhookSecret
    /// 1 for the first attempt.
    public let number: Int

    public init(id: String, url: String, body: [UInt8], secret: WebhookSecret, number: Int) {
        self.id = id
        self.url = url
        self.body = body
        self.secret = secret
        self.number = number
    }
}

/// How an attempt ended: a 2xx answer, or why not (a status, a timeout, a refused connection, a
/// redirect to another host), in words for the delivery's status.
public enum WebhookAttemptOutcome: Sendable, Equatable {
    case delivered(status: Int)
    case failed(String)
}

/// Sends attempts over the network (`HeraldWebhooks.URLSessionWebhookTransport` in `herald serve`).
/// `send` returns at once; `done` runs later on a thread of the transport's, never the caller's
/// queue, exactly once per attempt. A transport never follows a redirect to another host and gives
/// an attempt at most `WebhookTransport.timeoutSeconds`.
public protocol WebhookTransport: Sendable {
    func send(_ attempt: WebhookAttempt, done: @escaping @Sendable (WebhookAttemptOutcome) -> Void)
}

extension WebhookTransport {
    /// The longest an attempt may take before it counts as failed.
    public static var timeoutSeconds: Double { 10 }
}
