import Dispatch

/// What a cluster node asks of its dispatcher besides the `JobEngine` messages: to check a start
/// before the cluster admits it, and whether it has room to run one more job of a kind.
extension JobDispatcher {
    /// Checks `request` as a start would (request id, kind, params, dependencies), without making a
    /// job: the params normalised (defaults filled in), or why it would be refused. `reply` runs on
    /// `queue`. Thread: any; never waits.
    public func check(_ request: StartRequest, reply: @escaping @Sendable (Result<JSONObject, EngineError>) -> Void) {
        queue.async { [self] in
            if let requestId = request.requestId, requestId.isEmpty || requestId.utf8.count > 128 {
                return reply(.failure(.badRequest(field: "requestId", "must be 1 to 128 bytes")))
            }
            guard !isShuttingDown else { return reply(.failure(EngineError(.shuttingDown, "the server is shutting down"))) }
            let kind = JobKind(request.kind)
            guard kind != .ticker || configuration.enableTicker, let runner = runners[kind] else {
                let known = offeredKinds.map(\.rawValue)
                return reply(
                    .failure(
                        EngineError(.unknownKind, "unknown job kind \"\(request.kind)\"; known kinds: \(known.joined(separator: ", "))")))
            }
            do throws(EngineError) {
                reply(.success(try runner.validate(request.params, environment: environment)))
            } catch {
                reply(.failure(error))
            }
        }
    }

    /// Whether one more job of `kind` would start now: a remote worker with a free slot runs it, or
    /// a local one is free and the kind runs here, within the kind's limit. Thread: any but `queue`;
    /// waits for the queue (a cluster node's command queue asks).
    public func hasRoom(for kind: JobKind) -> Bool {
        queue.sync {
            guard !isShuttingDown else { return false }
            let runningOfKind = running.values.filter { $0.context.kind == kind }.count
            guard runningOfKind < configuration.limit(for: kind).maxConcurrent else { return false }
            // Queued jobs of its own come first.
            let waiting = order.contains { jobs[$0]?.state == .queued && jobs[$0]?.kind == kind }
            guard !waiting else { return false }
            if workerPool.pick(kind) != nil { return true }
            return running.count - workerPool.heldCount < configuration.workers && runners[kind]?.runsLocally == true
        }
    }

    /// The kinds this dispatcher can run (itself or on an attached worker). Thread: any.
    public var runnableKinds: [JobKind] { queue.sync { offeredKinds } }
}

/// Where a kind's result pages come from (a cluster node asks, to read them from any node).
public enum PageSource: Sendable, Equatable {
    /// The items its `results` events carried (search matches).
    case streamedResults
    /// Its kept log (a command job's output lines).
    case log
    /// Files on the node that ran it (sort's numbers): only that node can read them.
    case runningNode
}

extension JobDispatcher {
    /// Where pages of `kind`'s jobs come from. Thread: any.
    public func pageSource(for kind: JobKind) -> PageSource {
        guard let runner = runners[kind] else { return .runningNode }
        if runner is CommandRunner { return .log }
        if runner is SortRunner { return .runningNode }
        return .streamedResults
    }
}
