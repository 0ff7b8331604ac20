import Dispatch
import Foundation
import HeraldAccess
import HeraldEngine
import HeraldRedis
import HeraldSupport

/// Answering the hub's requests: from the view (snapshots, resumes, records, news, workers), from
/// this node's dispatcher (its history, its statistics, its own jobs' pages), through Redis (starts),
/// or through another node (cancels and pages of that node's jobs).
extension ClusterEngine {
    public func send(_ request: EngineRequest, reply: @escaping @Sendable (EngineReply) -> Void) {
        switch request {
        case .start(let start):
            if let refusal = unavailable() { return reply(.job(.failure(refusal))) }
            // A job with dependencies is kept and run here, where its dependencies' states are told
            // to the dispatcher as the view sees them (they may run on any node). Any other goes to
            // the cluster's queue of its kind, checked here first.
            guard start.after.isEmpty else {
                return viewQueue.async { [self] in
                    tellDependencies(of: start) { [self] in admit(start, reply: reply) }
                }
            }
            local.check(start) { [self] checked in
                switch checked {
                case .failure(let refusal): reply(.job(.failure(refusal)))
                case .success(let params): commandQueue.async { [self] in enqueue(start, params: params, reply: reply) }
                }
            }
        case .cancel(let id, let principal):
            if let refusal = unavailable() { return reply(.job(.failure(refusal))) }
            // A job this node just started may not be back from the stream yet: wait for it.
            afterOwnEvents { [self] in cancel(id, by: principal, reply: reply) }
        case .snapshot:
            afterOwnEvents { [self] in
                guard let view else { return reply(.snapshot(local.snapshot())) }
                reply(.snapshot(view.snapshot(limits: limits)))
            }
        case .resume(let epoch, let since):
            viewQueue.async { [self] in resume(epoch: epoch, since: since, reply: reply) }
        case .page(let job, let offset, let limit):
            viewQueue.async { [self] in
                guard let record = view?.job(JobID(job)) else { return pageOfUnviewed(job, request, reply: reply) }
                let fromRedis: @Sendable () -> Void = { [self] in
                    commandQueue.async { [self] in reply(.page(readPage(of: record, offset: offset, limit: limit))) }
                }
                switch local.pageSource(for: record.kind) {
                case .streamedResults:
                    // Kept in Redis as the events went by: any node reads them, even after the
                    // node that ran the job is gone.
                    fromRedis()
                case .log:
                    // The node that ran it keeps every line (a flood skips some from the stream); once
                    // it is gone, Redis has the streamed ones.
                    guard let node = record.node, node != settings.node else { return local.send(request, reply: reply) }
                    forward(request, to: node, reply: reply, orElse: fromRedis)
                case .runningNode:
                    guard let node = record.node, node != settings.node else { return local.send(request, reply: reply) }
                    forward(request, to: node, reply: reply)
                }
            }
        case .job(let id):
            afterOwnEvents { [self] in
                guard let record = view?.job(JobID(id)) else { return lookUpElsewhere(id, reply: reply) }
                reply(.job(.success(record)))
            }
        case .news:
            afterOwnEvents { [self] in reply(.news(view?.news ?? NewsFeed())) }
        case .workers:
            afterOwnEvents { [self] in reply(.workers(view?.allWorkers ?? [])) }
        case .statistics, .metrics:
            local.send(request) { [self] answer in
                guard case .statistics(let local) = answer else { return reply(answer) }
                viewQueue.async { [self] in
                    var statistics = local
                    statistics.seq = view?.seq ?? 0
                    statistics.epoch = view?.epoch
                    statistics.degraded = health.degradedReason ?? local.degraded
                    var cluster = figures.withLock { $0 }
                    (cluster.publishBacklog, cluster.eventsShed) = publisher.backlog
                    (cluster.auditBacklog, cluster.auditDropped) = auditBacklog.withLock { ($0.waiting.count, $0.dropped) }
                    statistics.cluster = cluster
                    reply(.statistics(statistics))
                }
            }
        case .history(let query):
            commandQueue.async { [self] in reply(.history(history(query))) }
        case .schedules, .controlSchedule, .webhooks:
            // Every node declares the same schedules (one jobs file) and claims each occurrence in
            // Redis; this node's own counts and pauses are what it answers. Each node tells the
            // webhooks of its own jobs' ends.
            local.send(request, reply: reply)
        }
    }

    /// Tells this node's dispatcher the states of the jobs `start` names in `after`, from the view, or from Redis for one the view does not hold yet (another node admitted it a
    /// moment ago): so the start may name them, and its job waits for them. Then `then` runs on
    /// `commandQueue`. Thread: `viewQueue`.
    func tellDependencies(of start: StartRequest, then: @escaping @Sendable () -> Void) {
        var states: [JobID: JobState] = [:]
        var unseen: [String] = []
        for text in start.after {
            // This node's own jobs too: one it has just taken may not have reached its dispatcher yet
            // (the dispatcher prefers its own record once it has one).
            if let record = view?.job(JobID(text)) {
                states[record.id] = record.state
            } else {
                unseen.append(text)
            }
        }
        let known = states
        let missing = unseen
        commandQueue.async { [self] in
            var states = known
            for id in missing {
                guard let bytes = try? commands().command("HGET", settings.keys.jobs, id).bytes,
                    let value = try? JSONParser.parse(bytes), let record = JobRecord(json: value)
                else { continue }
                states[record.id] = record.state
            }
            if !states.isEmpty { local.noteForeignJobs(states, register: true) }
            then()
        }
    }

    /// A job this node's view does not hold (yet, or any more): this node's own record of a job that
    /// has not ended (one it just started with dependencies), else the record in Redis (another node
    /// started it a moment ago, or it is archived), else `not_found`. A finished job the cluster has
    /// forgotten is `not_found` on every node, also on the one that ran it and still remembers it.
    /// Thread: any.
    func lookUpElsewhere(_ id: String, reply: @escaping @Sendable (EngineReply) -> Void) {
        local.send(.job(id)) { [self] answer in
            if case .job(.success(let record)) = answer, !record.state.isTerminal { return reply(answer) }
            commandQueue.async { [self] in
                let keys = settings.keys
                guard
                    let found = (try? commands().command("HGET", keys.jobs, id).bytes)
                        ?? (try? commands().command("HGET", keys.archive, id).bytes),
                    let value = try? JSONParser.parse(found), let record = JobRecord(json: value)
                else { return reply(.job(.failure(EngineError(.notFound, "no job \(id)")))) }
                reply(.job(.success(record)))
            }
        }
    }

    /// A page of a job the view does not hold: `gone` for one the cluster archived (its results and
    /// log went with it, on every node), else this node's own answer (a job it started a moment
    /// ago, or `not_found`). Thread: any.
    func pageOfUnviewed(_ id: String, _ request: EngineRequest, reply: @escaping @Sendable (EngineReply) -> Void) {
        commandQueue.async { [self] in
            guard let bytes = try? commands().command("HGET", settings.keys.archive, id).bytes,
                let value = try? JSONParser.parse(bytes), let record = JobRecord(json: value)
            else { return local.send(request, reply: reply) }
            let what = local.pageSource(for: record.kind) == .log ? "log" : "results"
            reply(
                .page(
                    .failure(
                        EngineError(
                            .gone,
                            "job \(record.id) is archived: only the newest --recent-jobs finished jobs keep their \(what); its record is still readable at /api/jobs/\(record.id)"
                        ))))
        }
    }

    /// The refusal for a start or cancel while Redis cannot be reached; nil when it can. Thread: any.
    func unavailable() -> EngineError? {
        health.degradedReason.map { EngineError(.unavailable, "this node cannot reach Redis (\($0)); try again soon") }
    }

    // MARK: - Starts (command queue)

    /// Admits a start with dependencies in Redis (a repeated request id, the busy rule), then starts
    /// it here. Thread: `commandQueue`.
    func admit(_ start: StartRequest, reply: @escaping @Sendable (EngineReply) -> Void) {
        let id = JobID.random()
        let kind = start.kind
        let limit = local.configuration.limit(for: JobKind(kind))
        let keys = settings.keys
        let answer: RedisReply
        do {
            answer = try commands().evaluate(
                ReserveScript(
                    keys: .init(keys, kind: kind, requestId: start.requestId),
                    args: .init(
                        job: id, node: settings.node, busyLimit: limit.refuseWhenBusy ? limit.maxConcurrent : 0, requestId: start.requestId,
                        kind: kind, gated: clusterLimit(of: JobKind(kind)) > 0, requestKeyPrefix: keys.request(""),
                        requestIdsKept: settings.requestIdsKept)))
        } catch {
            return reply(.job(.failure(commandFailed(error))))
        }
        guard let parts = answer.array, let verdict = parts.first?.string else {
            return reply(.job(.failure(EngineError(.internalError, "Redis answered the start with \(answer)"))))
        }
        guard verdict == "ok" else { return answerNotAdmitted(parts, kind: kind, reply: reply) }
        var admitted = start
        admitted.id = id
        local.send(.start(admitted)) { [self] answer in
            if case .job(.failure) = answer {
                // Refused here (unknown kind, bad params): the reservation goes.
                commandQueue.async { [self] in release(id, kind: kind, requestId: start.requestId) }
            }
            reply(answer)
        }
    }

    /// The answer to a start the `admit` or `reserve` script did not admit: the job a repeated
    /// `requestId` started, or `busy` naming a job of the kind that has not ended. Thread: any.
    func answerNotAdmitted(_ parts: [RedisReply], kind: String, reply: @escaping @Sendable (EngineReply) -> Void) {
        if parts.first?.string == "existing" {
            guard parts.count == 3, let bytes = parts[2].bytes, let value = try? JSONParser.parse(bytes),
                let record = JobRecord(json: value)
            else {
                return reply(.job(.failure(EngineError(.busy, "a start with this requestId is still being admitted; try again"))))
            }
            return reply(.job(.success(record)))
        }
        let other = parts.count > 1 ? (parts[1].string ?? "?") : "?"
        viewQueue.async { [self] in
            let state = view?.job(JobID(other))?.state.rawValue ?? "running"
            reply(.job(.failure(EngineError(.busy, "a \(kind) is already \(state) (\(other)); wait for it or cancel it"))))
        }
    }

    func release(_ id: JobID, kind: String, requestId: String?) {
        let keys = settings.keys
        _ = try? commands().evaluate(ReleaseScript(keys: .init(keys, kind: kind, requestId: requestId), args: .init(job: id)))
    }

    /// After a new epoch: this node's jobs that have not ended are this node's again in Redis (owned,
    /// active, held under a lease), and their records are appended, so the new stream shows them. Thread: any (hops to `commandQueue`).
    func reclaimRunningJobs() {
        commandQueue.async { [self] in
            let keys = settings.keys
            let unfinished = local.allJobs().filter { !$0.state.isTerminal }
            for record in unfinished {
                _ = try? commands().evaluate(
                    HoldScript(keys: .init(keys, kind: record.kind.rawValue), args: .init(job: record.id, node: settings.node)))
            }
            let now = WallClock.micros()
            publisher.enqueue(unfinished.map { SequencedEvent(seq: 0, ts: now, event: .job($0)) })
        }
    }

    // MARK: - Cancels (view queue, then wherever the job runs)

    /// `tries`: how often a job that waited in the queue was found taken meanwhile. Thread: `viewQueue`.
    func cancel(_ id: String, by principal: Principal, reply: @escaping @Sendable (EngineReply) -> Void, tries: Int = 0) {
        guard let record = view?.job(JobID(id)) else {
            // Not in this node's view (yet: another node started it a moment ago): Redis has it.
            return lookUpElsewhere(id) { [self] answer in
                guard case .job(.success(let found)) = answer else { return reply(answer) }
                viewQueue.async { [self] in cancel(found, by: principal, reply: reply, tries: tries) }
            }
        }
        cancel(record, by: principal, reply: reply, tries: tries)
    }

    /// Checked here, where the record is known, before the cancel goes wherever the job is: the
    /// node that runs it takes the cancel as the cluster's (`ClusterControl.cancel`). Thread: `viewQueue`.
    func cancel(_ record: JobRecord, by principal: Principal, reply: @escaping @Sendable (EngineReply) -> Void, tries: Int) {
        let id = record.id.rawValue
        if let refusal = principal.refusalToCancel(job: id, kind: record.kind.rawValue, startedBy: record.startedBy) {
            return reply(.job(.failure(EngineError(refusal))))
        }
        if record.state.isTerminal {
            return reply(.job(.failure(EngineError(.notCancellable, "job \(id) already ended \(record.state.rawValue)"))))
        }
        if record.node == nil && record.state == .queued {
            return commandQueue.async { [self] in cancelQueued(record, by: principal, reply: reply, tries: tries) }
        }
        guard let node = record.node, node != settings.node else { return local.send(.cancel(id, by: principal), reply: reply) }
        commandQueue.async { [self] in
            do {
                try requireAlive(node)
                // Written before the node is asked: should it stop before it reads the cancel, the
                // node that takes the job over finds it (`reclaim`), and the job is not run again.
                _ = try commands().command("SET", settings.keys.cancelRequest(id), principal.name, "EX", "86400")
                let answer = try ClusterControl.cancel(job: id, by: principal.name).post(to: node, keys: settings.keys, on: commands())
                if let message = answer.errorMessage { throw ClusterFailure.unexpected(message) }
                // The job ends `cancelled` on its node; every viewer sees that event.
                reply(.job(.success(record)))
            } catch let error as EngineError {
                reply(.job(.failure(error)))
            } catch {
                reply(.job(.failure(commandFailed(error))))
            }
        }
    }

    // MARK: - Resumes (view queue)

    /// From the view's recent events, else from Redis (`XRANGE`, checking that the first entry is
    /// the one the viewer last had), else a snapshot. Thread: `viewQueue`.
    func resume(epoch: String, since: Int64, reply: @escaping @Sendable (EngineReply) -> Void) {
        guard let view else { return reply(.resume(.snapshot(local.snapshot()))) }
        if let events = view.events(after: since, epoch: epoch) { return reply(.resume(.events(events))) }
        let snapshot = view.snapshot(limits: limits)
        guard epoch == view.epoch, since >= 0, since < view.seq, let oldest = view.oldestKeptSeq else {
            return reply(.resume(.snapshot(snapshot)))
        }
        let through = oldest - 1
        commandQueue.async { [self] in
            let older = replay(from: since, through: through)
            viewQueue.async { [self] in
                guard let older, let current = self.view, current.epoch == epoch, let newer = current.events(after: through, epoch: epoch)
                else {
                    return reply(.resume(.snapshot(self.view?.snapshot(limits: limits) ?? snapshot)))
                }
                reply(.resume(.events(older + newer)))
            }
        }
    }

    /// The events after `since` through `through`, read back from Redis; nil when any is gone, or
    /// is a `workers` event (which only a view at that point could merge). An entry holds one event
    /// or a batch (`ClusterEntry`), so the read starts far enough back to hold the entry that holds
    /// `since`. Thread: `commandQueue`.
    func replay(from since: Int64, through: Int64) -> [EncodedEvent]? {
        guard through > since else { return [] }
        let from = max(1, since - ClusterEntry.maxPerEntry + 1)
        guard let answer = try? commands().command("XRANGE", settings.keys.events, "\(from)-0", "\(through)-0"),
            let entries = answer.array
        else { return nil }
        // The first seq wanted: the one the viewer last had (the inclusive check: it must still be
        // there), or the stream's first.
        var expected = since == 0 ? 1 : since
        var events: [EncodedEvent] = []
        for entry in entries {
            guard let parts = entry.array, parts.count == 2, let id = parts[0].string, let fields = parts[1].array,
                let first = Int64(id.prefix { $0 != "-" }), let decoded = ClusterEntry.events(firstSeq: first, fields: fields)
            else { return nil }
            for event in decoded where event.seq >= expected && event.seq <= through {
                guard event.seq == expected else { return nil }
                expected += 1
                if event.seq == since { continue }
                if case .workers = event.event { return nil }
                events.append(EncodedEvent(SequencedEvent(seq: event.seq, ts: event.ts, event: event.event)))
            }
        }
        return expected == through + 1 ? events : nil
    }

    // MARK: - Redis on the command queue

    /// The command queue's connection, made when there is none. Thread: `commandQueue`.
    func commands() throws(RedisError) -> RedisConnection {
        try commandLink.connection().connection
    }

    /// Another connection found Redis back: a failed command connection is made again now, not at its
    /// next use (the reaper's, up to a second later; starts are refused before they reach it while
    /// the node is degraded). Thread: `commandQueue`.
    func reconnectCommands() {
        guard !health.isWorking(.commands) else { return }
        do {
            _ = try commands().command("PING")
            commandLink.worked()
        } catch {
            commandLink.failed(error)
        }
    }

    /// What a client is told when a Redis call failed. Thread: `commandQueue`.
    func commandFailed(_ error: any Error) -> EngineError {
        if let redis = error as? RedisError, redis.isConnectionLost { health.failed(.commands, redis.description) }
        return EngineError(.unavailable, "this node cannot reach Redis (\(error)); try again soon")
    }

    /// Throws `unavailable` when `node` has not said it is alive within `nodeTimeoutSeconds`.
    /// Thread: `commandQueue`.
    func requireAlive(_ node: String) throws {
        let age = try commands().secondsSinceHeard(from: node, keys: settings.keys)
        guard age <= settings.nodeTimeoutSeconds else {
            let since = age.isFinite ? "for \(Int(age)) s" : "since it stopped"
            throw EngineError(.unavailable, "node \(node), which holds the job, has not been heard from \(since)")
        }
    }
}
