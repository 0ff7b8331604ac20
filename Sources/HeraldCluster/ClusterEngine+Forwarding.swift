import Dispatch
import Foundation
import HeraldAccess
import HeraldEngine
import HeraldRedis

/// Requests between nodes: a page of a job another node holds (its sort numbers and logs stay on
/// that node), and a cancel of a job another node runs. The asking node adds an entry to the holder's
/// control stream; the holder's tail reads it; a page's answer comes back on a list only the asker
/// waits on, within `forwardTimeoutSeconds`, else the asker answers `unavailable`.
extension ClusterEngine {
    /// Sends a page request to `node` and waits for its answer, on a global queue with a connection of
    /// its own (the wait must not hold up starts and cancels). Thread: any.
    /// `orElse`, when given, answers instead of `unavailable` when the node is gone or silent.
    func forward(
        _ request: EngineRequest, to node: String, reply: @escaping @Sendable (EngineReply) -> Void,
        orElse fallback: (@Sendable () -> Void)? = nil
    ) {
        guard case .page(let job, let offset, let limit) = request else { return }
        let settings = settings
        figures.withLock { $0.pagesForwarded += 1 }
        DispatchQueue.global(qos: .userInitiated).async {
            let token = JobDispatcher.makeEpoch()
            let listKey = settings.keys.reply(token)
            let wait = settings.forwardTimeoutSeconds
            do {
                let connection = try RedisConnection(address: settings.address, connectTimeout: 1, commandTimeout: wait + 2)
                defer { connection.close() }
                guard try connection.secondsSinceHeard(from: node, keys: settings.keys) <= settings.nodeTimeoutSeconds else {
                    if let fallback { return fallback() }
                    return reply(.page(.failure(EngineError(.unavailable, "node \(node), which holds job \(job), is gone"))))
                }
                _ = try ClusterControl.page(job: job, offset: offset, limit: limit, reply: token).post(
                    to: node, keys: settings.keys, on: connection)
                let answer = try connection.command("BLPOP", listKey, String(format: "%.2f", wait))
                guard let pair = answer.array, pair.count == 2, let bytes = pair[1].bytes else {
                    if let fallback { return fallback() }
                    return reply(
                        .page(.failure(EngineError(.unavailable, "node \(node), which holds job \(job), did not answer within \(wait) s"))))
                }
                reply(.page(ForwardedPage.decode(bytes)))
            } catch {
                if let fallback { return fallback() }
                reply(.page(.failure(EngineError(.unavailable, "asking node \(node) for a page of job \(job): \(error)"))))
            }
        }
    }

    /// Requests other nodes sent to this one, read by the tail. Thread: the tail thread; hops away.
    func serve(_ requests: [ClusterControl]) {
        for request in requests {
            switch request {
            case .cancel(let job, let by):
                // The asking node checked the principal; this node records who it was.
                local.send(.cancel(job, by: Principal(name: by, role: .admin, source: .forwardedByNode))) { _ in }
            case .page(let job, let offset, let limit, let token):
                figures.withLock { $0.pagesServedForOthers += 1 }
                local.send(.page(job: job, offset: offset, limit: limit)) { [self] answer in
                    guard case .page(let result) = answer else { return }
                    let encoded = ForwardedPage.encode(result)
                    commandQueue.async { [self] in
                        let key = Array(settings.keys.reply(token).utf8)
                        _ = try? commands().pipeline([
                            [Array("RPUSH".utf8), key, encoded], [Array("EXPIRE".utf8), key, Array("10".utf8)],
                        ])
                    }
                }
            }
        }
    }
}

extension ClusterEngine {
    /// A page of a job's streamed results or kept log, read from Redis. Thread: `commandQueue`.
    func readPage(of record: JobRecord, offset: Int, limit: Int) -> Result<ResultPage, EngineError> {
        guard offset >= 0 else { return .failure(.badRequest(field: "offset", "must be 0 or more")) }
        guard (1...10_000).contains(limit) else { return .failure(.badRequest(field: "limit", "must be from 1 to 10000")) }
        let isLog = local.pageSource(for: record.kind) == .log
        let keys = settings.keys
        let list = isLog ? keys.log(record.id.rawValue) : keys.results(record.id.rawValue)
        let replies: [RedisReply]
        do {
            replies = try commands().pipeline(
                [
                    ["LLEN", list], ["LRANGE", list, String(offset), String(offset + limit - 1)],
                    ["GET", keys.logFirst(record.id.rawValue)], ["HGET", keys.resultBytes, record.id.rawValue],
                ].map { $0.map { Array($0.utf8) } })
        } catch {
            return .failure(commandFailed(error))
        }
        guard replies.count == 4, let total = replies[0].integer, let items = replies[1].array else {
            return .failure(EngineError(.internalError, "Redis answered a page with \(replies)"))
        }
        if !isLog, replies[3].string == "-1" {
            return .failure(
                EngineError(
                    .gone,
                    "the matches of job \(record.id) are no longer kept: finished jobs' matches past --kept-results-bytes go, oldest first"
                ))
        }
        let values = items.compactMap { $0.bytes.flatMap { try? JSONParser.parse($0) } }
        let first = replies[2].string.flatMap { Int($0) } ?? 0
        return .success(ResultPage(offset: offset, total: Int(total), values: values, isLog: isLog, first: isLog ? first : 0))
    }
}
