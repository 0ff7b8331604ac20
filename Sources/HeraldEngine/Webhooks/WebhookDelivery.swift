import Foundation

/// One job's ending told to one webhook: the body is made once and its `id` (the `webhook-id`
/// header) never changes, so every attempt, before and after a restart, carries the same message
/// and a receiver can drop repeats. A plain value, owned by the notifier on the dispatcher queue.
public struct WebhookDelivery: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Waiting for its next attempt, or being attempted.
        case pending
        case delivered
        /// Every attempt failed (`WebhookBackoff.maxAttempts`).
        case givenUp
    }

    public let id: String
    public let webhook: String
    public let job: JobID
    public let event: NotifyEvent
    public let body: [UInt8]
    /// Milliseconds since the epoch.
    public let createdAt: Int64
    public var status = Status.pending
    /// Attempts made so far.
    public var attempts = 0
    /// When the next attempt is due (milliseconds since the epoch); nil once delivered or given up.
    public var nextAttemptAt: Int64?
    /// How the last attempt ended: "200", "HTTP 503", "timed out after 10 s", …
    public var lastOutcome: String?

    public init(id: String, webhook: String, job: JobID, event: NotifyEvent, body: [UInt8], createdAt: Int64) {
        self.id = id
        self.webhook = webhook
        self.job = job
        self.event = event
        self.body = body
        self.createdAt = createdAt
        self.nextAttemptAt = createdAt
    }

    /// A new `webhook-id`: `msg_` and 32 random hex digits.
    public static func newID() -> String {
        "msg_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// What `GET /api/webhooks` shows of it: never the body.
    public var statusJSON: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "job": .string(job.rawValue), "event": .string(event.rawValue), "status": .string(status.rawValue),
            "attempts": .int(Int64(attempts)), "createdAt": .int(createdAt),
            "nextAttemptAt": nextAttemptAt.map { .int($0) } ?? .null,
        ]
        object["lastOutcome"] = lastOutcome.map { .string($0) } ?? .null
        return .object(object)
    }

    /// Its line in the pending-deliveries file (and in a cluster's mirror of them in Redis):
    /// everything but the secret, which is the jobs file's.
    public var fileJSON: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "webhook": .string(webhook), "job": .string(job.rawValue), "event": .string(event.rawValue),
            "body": .string(String(decoding: body, as: UTF8.self)), "createdAt": .int(createdAt), "attempts": .int(Int64(attempts)),
        ]
        if let nextAttemptAt { object["nextAttemptAt"] = .int(nextAttemptAt) }
        if let lastOutcome { object["lastOutcome"] = .string(lastOutcome) }
        return .object(object)
    }

    /// Reads a line of the pending-deliveries file (or of the mirror) back; nil when it is not one.
    public init?(file value: JSONValue) {
        guard let id = value["id"]?.stringValue, let webhook = value["webhook"]?.stringValue, let job = value["job"]?.stringValue,
            let event = value["event"]?.stringValue.flatMap(NotifyEvent.init(rawValue:)), let body = value["body"]?.stringValue,
            let createdAt = value["createdAt"]?.intValue, let attempts = value["attempts"]?.intValue, attempts >= 0
        else { return nil }
        self.init(id: id, webhook: webhook, job: JobID(job), event: event, body: Array(body.utf8), createdAt: createdAt)
        self.attempts = Int(attempts)
        self.nextAttemptAt = value["nextAttemptAt"]?.intValue ?? createdAt
        self.lastOutcome = value["lastOutcome"]?.stringValue
    }
}
