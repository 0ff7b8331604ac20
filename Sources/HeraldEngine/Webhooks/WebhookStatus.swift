import Foundation

/// Where one webhook stands, for `GET /api/webhooks`: its counts since the start and its latest
/// deliveries (newest first). The URL is shown without its query, which may carry a token; secrets
/// are never shown. A plain value; any thread.
public struct WebhookStatus: Sendable, Equatable {
    public let webhook: String
    public var delivered = 0
    /// Failed attempts that were followed by another.
    public var retried = 0
    public var givenUp = 0
    public var recent: [WebhookDelivery] = []

    /// How many deliveries `recent` keeps.
    public static let recentLimit = 20

    public init(webhook: String) { self.webhook = webhook }

    public var json: JSONValue {
        let pending = recent.filter { $0.status == .pending }.count
        return [
            "webhook": .string(Self.shown(webhook)), "delivered": .int(Int64(delivered)), "retried": .int(Int64(retried)),
            "givenUp": .int(Int64(givenUp)), "pending": .int(Int64(pending)),
            "maxAttempts": .int(Int64(WebhookBackoff.maxAttempts)), "deliveries": .array(recent.map(\.statusJSON)),
        ]
    }

    /// `url` without its query and fragment (which may carry a token): how logs and answers name it.
    public static func shown(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.query = nil
        components.fragment = nil
        return components.string ?? url
    }

    /// Keeps `delivery` as the newest of `recent` (replacing its older copy).
    mutating func note(_ delivery: WebhookDelivery) {
        recent.removeAll { $0.id == delivery.id }
        recent.insert(delivery, at: 0)
        if recent.count > Self.recentLimit {
            // Pending deliveries stay listed, however old: the oldest finished ones go first.
            if let index = recent.lastIndex(where: { $0.status != .pending }) { recent.remove(at: index) }
        }
    }
}

/// The three counters of `herald_webhook_deliveries_total`, summed over the webhooks.
public struct WebhookCounts: Sendable, Equatable {
    public var delivered = 0
    public var retried = 0
    public var givenUp = 0
    public init() {}
}
