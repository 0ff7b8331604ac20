import Dispatch
import Foundation
import HeraldAccess
import HeraldEngine
import HeraldRedis
import HeraldSupport

/// Every job a node holds has a lease in Redis: an entry of the `leases` stream, pending under the
/// node's name in the group `holders`, renewed every second by the node's publisher (`renew`). A node
/// that stops (killed, crashed, paused past its lease, cut off from Redis) stops renewing. Every node
/// looks once a second (`XAUTOCLAIM` of entries idle for longer than the lease, `reclaim`), and the
/// first to find a lapsed one takes its job over and runs it: a queued job waits here, a running one
/// is retried when its kind retries, else it fails naming the node. The node that held it, if it
/// comes back, can no longer write the job's events (the append script refuses them: the job is not
/// its own), and it cancels its copy (`refused`).
extension ClusterEngine {
    /// Starts looking for lapsed leases. Thread: any (the timer runs on `commandQueue`).
    func startReaper() {
        let timer = DispatchSource.makeTimerSource(queue: commandQueue)
        timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            self?.reclaimLapsedLeases()
            self?.forgetStoppedNodes()
            self?.mirrorDeliveries()
            self?.takeOverDeliveries()
            // Audit events left waiting by a drain that found Redis away.
            self?.drainAudit()
        }
        timer.resume()
        reaperTimer.withLock { $0 = timer }
    }

    func stopReaper() {
        reaperTimer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    /// Takes over every job whose lease lapsed, 100 at a time. Thread: `commandQueue`.
    func reclaimLapsedLeases() {
        var cursor = "0-0"
        for _ in 0..<100 {
            guard let next = reclaim(mode: .lapsed, from: cursor), next != "0-0" else { return }
            cursor = next
        }
    }

    /// Forgets the nodes not heard from for the lease (`forgetNode`): their heartbeats go, and their
    /// workers are no longer listed anywhere. Thread: `commandQueue`.
    func forgetStoppedNodes() {
        let keys = settings.keys
        // Heartbeats are Redis's time, so staleness is too: a step of this node's wall clock forgets no one.
        guard let answer = try? commands().command("HGETALL", keys.nodes), let pairs = answer.array,
            let redisNow = try? commands().serverMilliseconds()
        else { return }
        let timeout = Int64(settings.nodeTimeoutSeconds * 1000)
        let staleBefore = Double(redisNow - timeout)
        let noWorkers = WireEncoder.encode(event: .workers([]), seq: 0, ts: WallClock.micros())
        for index in stride(from: 0, to: pairs.count - 1, by: 2) {
            guard let node = pairs[index].string, node != settings.node, let heard = pairs[index + 1].string.flatMap({ Double($0) }),
                heard < staleBefore,
                let forgotten = try? commands().evaluate(
                    ForgetNodeScript(
                        keys: .init(keys),
                        args: .init(
                            node: node, timeoutMilliseconds: timeout, epoch: epoch, encoding: noWorkers, maxLength: settings.streamLength
                        ))),
                forgotten.integer == 1
            else { continue }
            logger("node \(node) stopped (no heartbeat for \(settings.nodeTimeoutSeconds) s); it and its workers are no longer listed")
        }
    }

    /// Takes back this node's own jobs from before a crash or a kill (it restarted under its old name;
    /// nothing runs them now). Thread: `commandQueue`, before the first renewal.
    func reclaimOwnLeases() {
        _ = reclaim(mode: .own, from: "0-0")
    }

    /// One `reclaim` script: adopts what it took over; returns the cursor to go on from (nil when
    /// Redis could not be asked). Thread: `commandQueue`.
    private func reclaim(mode: ReclaimScript.Mode, from cursor: String) -> String? {
        let keys = settings.keys
        guard
            let answer = try? commands().evaluate(
                ReclaimScript(
                    keys: .init(keys),
                    args: .init(
                        node: settings.node, leaseMilliseconds: Int64(settings.nodeTimeoutSeconds * 1000), mode: mode, cursor: cursor,
                        prefix: keys.prefix))),
            let parts = answer.array, parts.count == 3, let next = parts[0].string, let taken = parts[2].array
        else { return nil }
        let deleted = parts[1].integer ?? 0
        var adopted: [(record: JobRecord, from: String)] = []
        for index in stride(from: 0, to: taken.count - 1, by: 2) {
            guard let bytes = taken[index + 1].bytes, let value = try? JSONParser.parse(bytes), let record = JobRecord(json: value) else {
                continue
            }
            let owner = taken[index].string ?? ""
            adopted.append((record, owner.isEmpty ? record.node ?? "unknown" : owner))
        }
        if deleted > 0 {
            figures.withLock { $0.deletedLeaseEntries += Int(deleted) }
            logger(
                "Redis had deleted \(deleted) lease entr\(deleted == 1 ? "y" : "ies") of held jobs; their jobs were taken over all the same"
            )
        }
        guard !adopted.isEmpty else { return next }
        let from = Set(adopted.map(\.from)).sorted().joined(separator: ", ")
        logger(
            mode == .own
                ? "this node restarted: it takes back its \(adopted.count) unfinished job(s)"
                : "the lease of \(adopted.count) job(s) of \(from) lapsed; this node takes them over")
        figures.withLock { $0.reclaims += adopted.count }
        for (record, from) in adopted { local.adopt(record, from: from) }
        cancelAdoptedIfAsked(adopted.map(\.record.id.rawValue))
        return next
    }

    /// A cancel another node accepted for a job whose node then stopped before it read it: the job,
    /// taken over here, is cancelled here (after `adopt`, on the same queue, so before a retry
    /// starts), as the asker recorded it (`ClusterKeys.cancelRequest`). Thread: `commandQueue`.
    private func cancelAdoptedIfAsked(_ jobs: [String]) {
        guard !jobs.isEmpty,
            let answer = try? commands().command(["MGET"] + jobs.map { settings.keys.cancelRequest($0) }), let askers = answer.array
        else { return }
        for (job, asker) in zip(jobs, askers) {
            guard let by = asker.string else { continue }
            logger("job \(job) was to be cancelled by \(by) when its node stopped; it is cancelled here")
            local.send(.cancel(job, by: Principal(name: by, role: .admin, source: .forwardedByNode))) { _ in }
        }
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
