import Foundation

/// `webhooks/pending.json` in the data folder: every delivery not yet delivered or given up, so a
/// restart sends them again with the same `webhook-id`. Rewritten whole and atomically
/// (`AtomicFile`) after each change. Secrets are not in it: they stay in their files.
/// Thread: any; one writer at a time (the notifier's file queue).
struct PendingDeliveriesFile: Sendable {
    let url: URL

    /// What the file holds; empty when there is none. `problem`: the file could not be read (its
    /// deliveries are lost; the log says so).
    func load() -> (deliveries: [WebhookDelivery], problem: String?) {
        guard let data = FileManager.default.contents(atPath: url.path) else { return ([], nil) }
        guard let value = try? JSONParser.parse([UInt8](data), maxDepth: 16), let items = value["deliveries"]?.arrayValue else {
            return ([], "webhooks: \(url.path) cannot be read; its pending deliveries are not resent")
        }
        let deliveries = items.compactMap(WebhookDelivery.init(file:))
        let skipped = items.count - deliveries.count
        return (deliveries, skipped > 0 ? "webhooks: \(skipped) unreadable delivery(ies) in \(url.path) skipped" : nil)
    }

    func save(_ deliveries: [WebhookDelivery]) throws {
        var bytes = JSONWriter.encode(["version": .int(1), "deliveries": .array(deliveries.map(\.fileJSON))])
        bytes.append(UInt8(ascii: "\n"))
        try AtomicFile.write(Data(bytes), to: url)
    }
}
