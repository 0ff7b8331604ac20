import Dispatch
import Foundation
import HeraldEngine
import HeraldRedis

/// A node that stops (killed, crashed, paused past its lease, cut off from Redis) stops renewing its
/// lease: its heartbeat in `nodes`. Every node looks once a second; the first to find a node silent
/// for `nodeTimeoutSeconds` takes its unfinished jobs over in one script, and runs them: a queued job
/// waits here, a running one is retried when its kind retries, else it fails naming the node. The
/// stopped node, if it comes back, can no longer write those jobs' events (the append script refuses
/// them: they are not its own), and it cancels its copies (`refused`).
extension ClusterEngine {
    /// Starts looking for stopped nodes. Thread: any (the timer runs on `commandQueue`).
    func startReaper() {
        let timer = DispatchSource.makeTimerSource(queue: commandQueue)
        timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.reapStoppedNodes() }
        timer.resume()
        reaperTimer.withLock { $0 = timer }
    }

    func stopReaper() {
        reaperTimer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    /// Thread: `commandQueue`.
    func reapStoppedNodes() {
        guard let answer = try? commands().command("HGETALL", settings.keys.nodes), let pairs = answer.array else { return }
        let now = Date().timeIntervalSince1970 * 1000
        let staleBefore = now - settings.nodeTimeoutSeconds * 1000
        for index in stride(from: 0, to: pairs.count - 1, by: 2) {
            guard let node = pairs[index].string, node != settings.node, let heard = pairs[index + 1].string.flatMap({ Double($0) }),
                heard < staleBefore
            else { continue }
            reap(node, staleBefore: staleBefore)
        }
    }

    /// Thread: `commandQueue`.
    func reap(_ node: String, staleBefore: Double) {
        let keys = settings.keys
        guard
            let answer = try? commands().evaluate(
                ClusterScripts.reap, keys: [keys.nodes, keys.owner, keys.jobs, keys.pending],
                args: [node, settings.node, String(Int64(staleBefore)), keys.prefix]),
            let taken = answer.array
        else { return }
        let records = taken.compactMap { reply in reply.bytes.flatMap { try? JSONParser.parse($0) }.flatMap(JobRecord.init(json:)) }
        guard !records.isEmpty || node != settings.node else { return }
        logger("node \(node) stopped renewing its lease; this node takes over its \(records.count) unfinished job(s)")
        figures.withLock { $0.reclaims += records.count }
        for record in records { local.adopt(record, from: node) }
    }

    /// Redis refused this node's writes about `jobs`: another node took them over (this node was
    /// paused, or cut off, past its lease). Its own copies stop. Thread: the publisher thread.
    func refused(_ jobs: [JobID]) {
        for job in jobs {
            logger("job \(job) is no longer this node's (another node took it over); its copy here is cancelled")
            local.send(.cancel(job.rawValue)) { _ in }
        }
    }
}
