import Foundation
import HeraldEngine
import HeraldRedis
import HeraldSupport

/// Webhook deliveries outlive their node (docs/webhooks.md, "A cluster"): each node keeps a copy of
/// its pending deliveries in Redis (`webhooks`, written after each change of its
/// `webhooks/pending.json`), and once a second every node looks for copies of nodes silent for the
/// lease; the first to find one takes it (`takeOverDeliveries`, atomic: one node gets it) and sends
/// its deliveries with the same ids, bodies and attempt counts. At least once: a node that was only
/// paused, or comes back with its data folder, may send one again.
extension ClusterEngine {
    /// The notifier's list after a change: kept as the newest to copy, and the copy asked for unless
    /// one is already waiting. Thread: the notifier's file queue.
    func noteDeliveries(_ deliveries: [WebhookDelivery]) {
        let encoded = deliveries.isEmpty ? [] : JSONWriter.encode(.array(deliveries.map(\.fileJSON)))
        let waiting = deliveriesToMirror.withLock { newest in
            defer { newest = encoded }
            return newest != nil
        }
        if !waiting { commandQueue.async { [weak self] in self?.mirrorDeliveries() } }
    }

    /// Writes the newest list waiting, if any; when Redis cannot be reached it waits for the next
    /// change or the reaper's next look, a second later. Thread: `commandQueue`.
    func mirrorDeliveries() {
        guard
            let encoded = deliveriesToMirror.withLock({ newest in
                defer { newest = nil }; return newest
            })
        else { return }
        let call = MirrorDeliveriesScript(
            keys: .init(settings.keys), args: .init(node: settings.node, milliseconds: WallClock.millis(), deliveries: encoded))
        if (try? commands().evaluate(call)) == nil {
            deliveriesToMirror.withLock { newest in if newest == nil { newest = encoded } }
        }
    }

    /// Takes over the deliveries of every node silent for the lease. Thread: `commandQueue`.
    func takeOverDeliveries() {
        let keys = settings.keys
        guard let answer = try? commands().command("HKEYS", keys.webhooks), let nodes = answer.array else { return }
        let staleBefore = WallClock.millis() - Int64(settings.nodeTimeoutSeconds * 1000)
        for node in nodes.compactMap(\.string) where node != settings.node {
            guard
                let taken = try? commands().evaluate(
                    TakeOverDeliveriesScript(keys: .init(keys), args: .init(node: node, staleBefore: staleBefore))),
                let bytes = taken.bytes
            else { continue }
            guard let value = try? JSONParser.parse(bytes), let items = value.arrayValue else {
                logger("the pending webhook deliveries node \(node) left in Redis cannot be read; they are not sent")
                continue
            }
            let deliveries = items.compactMap(WebhookDelivery.init(file:))
            logger("node \(node) stopped with \(deliveries.count) pending webhook delivery(ies); this node takes them over")
            local.adoptDeliveries(deliveries, from: node)
        }
    }
}
