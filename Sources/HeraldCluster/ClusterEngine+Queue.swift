import Dispatch
import Foundation
import HeraldAccess
import HeraldEngine
import HeraldRedis
import HeraldSupport

/// Jobs run where there is room: a start on any node puts the job in its kind's queue in Redis
/// (`admit`), and every node with room for that kind takes the oldest waiting one (`claim`) when it
/// hears of a queued job, when one of its own jobs ends, and once a second. The node that takes a job
/// owns it (its events are that node's to write) and runs it as if it had been started there.
extension ClusterEngine {
    /// Admits a checked start into the cluster's queue, and looks for room for it. Thread: `commandQueue`.
    func enqueue(_ start: StartRequest, params: JSONObject, reply: @escaping @Sendable (EngineReply) -> Void) {
        let keys = settings.keys
        let kind = start.kind
        let limit = local.configuration.limit(for: JobKind(kind))
        let record = JobRecord(
            id: JobID.random(), kind: JobKind(kind), params: params, requestId: start.requestId,
            createdAt: WallClock.millis(), schedule: start.schedule,
            startedBy: start.schedule.map { "schedule:\($0)" } ?? start.startedBy)
        let encoding = WireEncoder.encode(event: .job(record), seq: 0, ts: WallClock.micros())
        let answer: RedisReply
        do {
            answer = try commands().evaluate(
                AdmitScript(
                    keys: .init(keys, kind: kind, requestId: start.requestId),
                    args: .init(
                        job: record.id, busyLimit: limit.refuseWhenBusy ? limit.maxConcurrent : 0, requestId: start.requestId, epoch: epoch,
                        encoding: encoding, record: JSONWriter.encode(record.json), maxLength: settings.streamLength, node: settings.node,
                        createdAt: record.createdAt, requestKeyPrefix: keys.request(""), requestIdsKept: settings.requestIdsKept)))
        } catch {
            return reply(.job(.failure(commandFailed(error))))
        }
        if let message = answer.errorMessage {
            return reply(.job(.failure(EngineError(.unavailable, "the shared stream is changing (\(message)); try again"))))
        }
        guard let parts = answer.array, let verdict = parts.first?.string else {
            return reply(.job(.failure(EngineError(.internalError, "Redis answered the start with \(answer)"))))
        }
        guard verdict == "ok" else { return answerNotAdmitted(parts, kind: kind, reply: reply) }
        // The client may ask this node about the job at once: answers wait for its `queued` event.
        if parts.count > 2, let seq = parts[2].integer { admittedThrough.withLock { $0 = max($0, seq) } }
        reply(.job(.success(record)))
        claimWhereThereIsRoom([JobKind(kind)])
    }

    /// Takes waiting jobs of `kinds` while this node has room for them. Thread: `commandQueue`.
    func claimWhereThereIsRoom(_ kinds: [JobKind]) {
        guard unavailable() == nil else { return }
        let keys = settings.keys
        for kind in kinds {
            let limit = clusterLimit(of: kind)
            while local.hasRoom(for: kind) {
                guard
                    let answer = try? commands().evaluate(
                        ClaimScript(keys: .init(keys, kind: kind.rawValue), args: .init(node: settings.node, limit: limit))),
                    let bytes = answer.bytes, let value = try? JSONParser.parse(bytes), let record = JobRecord(json: value)
                else { break }
                local.adopt(record, from: "the queue")
            }
        }
    }

    /// A kind that queues at a limit of its own (`concurrency`) is limited across the cluster: that
    /// limit, else 0 (none; a kind that refuses when busy is held by the busy rule instead).
    func clusterLimit(of kind: JobKind) -> Int { Self.clusterLimit(of: kind, configuration: local.configuration) }

    static func clusterLimit(of kind: JobKind, configuration: EngineConfiguration) -> Int {
        configuration.kindLimits[kind].map { $0.refuseWhenBusy ? 0 : $0.maxConcurrent } ?? 0
    }

    /// The kinds of `runnable` whose `concurrency` holds across the cluster (for `init`).
    static func clusterLimitedKinds(of runnable: Set<JobKind>, configuration: EngineConfiguration) -> Set<JobKind> {
        runnable.filter { clusterLimit(of: $0, configuration: configuration) > 0 }
    }

    /// Starts with dependencies of a cluster-limited kind run here only once Redis gives them a
    /// place (`slot`): the dispatcher asks through this gate when their dependencies are met, and is
    /// told to ask again whenever a job of the kind ends anywhere (`noticeRoom`) and once a second.
    func gateDependentStarts() {
        let kinds = clusterLimitedKinds
        guard !kinds.isEmpty else { return }
        local.gateLaunches(of: kinds) { [weak self] record, answer in
            guard let self else { return answer(false) }
            commandQueue.async { [self] in answer(takeSlot(for: record)) }
        }
    }

    /// Whether this node fires a schedule's occurrence: the first node to claim it in Redis does; the
    /// claim lasts a week, longer than any catch-up looks back. False when Redis cannot say (the node
    /// is degraded then, and the occurrence is another node's or no one's). Thread: `commandQueue`.
    func claimOccurrence(_ schedule: String, _ occurrence: Int64) -> Bool {
        let key = settings.keys.occurrence(schedule, occurrence)
        guard let reply = try? commands().command("SET", key, settings.node, "NX", "EX", "604800") else { return false }
        return reply.string == "OK"
    }

    /// Whether the gated job may run now (`slot`); false when Redis cannot say. Thread: `commandQueue`.
    func takeSlot(for record: JobRecord) -> Bool {
        let keys = settings.keys
        let kind = record.kind.rawValue
        guard
            let answer = try? commands().evaluate(
                SlotScript(keys: .init(keys, kind: kind), args: .init(job: record.id, limit: clusterLimit(of: record.kind))))
        else { return false }
        return answer.integer == 1
    }

    /// Looks for room for every kind this node runs, once a second, on the command queue; gated
    /// starts ask again too (a backstop: a place may free between a refusal and the end that frees it).
    func startClaiming() {
        let kinds = local.runnableKinds
        let gated = clusterLimitedKinds
        let timer = DispatchSource.makeTimerSource(queue: commandQueue)
        timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            self?.claimWhereThereIsRoom(kinds)
            if !gated.isEmpty { self?.local.reopenGates(for: gated) }
        }
        timer.resume()
        claimTimer.withLock { $0 = timer }
    }

    func stopClaiming() {
        claimTimer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    /// After the view applied `entries`: a job queued for anyone, one of this node's jobs that ended
    /// (a slot is free), or a job of a kind that ended anywhere (its cluster-wide limit), is a reason
    /// to look for room. A job started on another node is left a
    /// moment to that node (it claims at once when it has room), so a job runs where it was started
    /// unless that node is full. Thread: `viewQueue`.
    func noticeRoom(in entries: [ClusterEntry]) {
        var now: Set<JobKind> = []
        var soon: Set<JobKind> = []
        for entry in entries {
            guard case .job(let record) = entry.event else { continue }
            if record.state == .queued && record.node == nil && entry.node != settings.node {
                soon.insert(record.kind)
            } else if record.state.isTerminal && record.node == settings.node {
                now.formUnion(runnable)
            } else if record.state.isTerminal {
                // A job of the kind ended elsewhere: the kind may be under its cluster-wide limit again.
                soon.insert(record.kind)
            }
        }
        // A job of a cluster-limited kind that ended anywhere may have freed a place for a gated start here.
        let reopened = now.union(soon).intersection(clusterLimitedKinds)
        if !reopened.isEmpty { local.reopenGates(for: reopened) }
        let claimNow = now.filter(runnable.contains).sorted { $0.rawValue < $1.rawValue }
        let claimSoon = soon.subtracting(now).filter(runnable.contains).sorted { $0.rawValue < $1.rawValue }
        if !claimNow.isEmpty { commandQueue.async { [self] in claimWhereThereIsRoom(claimNow) } }
        if !claimSoon.isEmpty {
            commandQueue.asyncAfter(deadline: .now() + Self.claimDeference) { [self] in claimWhereThereIsRoom(claimSoon) }
        }
    }

    /// How long a node leaves a job started elsewhere to the node that started it.
    static let claimDeference = 0.1

    /// Cancels a job that waits in the cluster's queue, owned by nobody. Thread: `commandQueue`.
    func cancelQueued(_ record: JobRecord, by principal: Principal, reply: @escaping @Sendable (EngineReply) -> Void, tries: Int = 0) {
        var cancelled = record
        do { try cancelled.move(to: .cancelled) } catch {
            return reply(.job(.failure(EngineError(.notCancellable, "job \(record.id) already ended \(record.state.rawValue)"))))
        }
        cancelled.markEnded(error: "cancelled by request", at: WallClock.millis(), cancelledBy: principal.name)
        let keys = settings.keys
        let encoding = WireEncoder.encode(event: .job(cancelled), seq: 0, ts: WallClock.micros())
        let answer: RedisReply
        do {
            answer = try commands().evaluate(
                CancelQueuedScript(
                    keys: .init(keys, kind: record.kind.rawValue),
                    args: .init(
                        job: record.id, epoch: epoch, encoding: encoding, record: JSONWriter.encode(cancelled.json), node: settings.node,
                        maxLength: settings.streamLength)))
        } catch {
            return reply(.job(.failure(commandFailed(error))))
        }
        switch answer.string {
        case "ok":
            reply(.job(.success(cancelled)))
        case "owned":
            // A node took it meanwhile: cancel it there, as any running job, once this node's view
            // says which node (its `running` event); a view that does not move says so.
            guard tries < 10 else {
                return reply(.job(.failure(EngineError(.unavailable, "job \(record.id) was just taken by a node; try again"))))
            }
            viewQueue.asyncAfter(deadline: .now() + 0.2) { [self] in
                cancel(record.id.rawValue, by: principal, reply: reply, tries: tries + 1)
            }
        default:
            reply(.job(.failure(EngineError(.notCancellable, "job \(record.id) is no longer queued"))))
        }
    }
}
