import HeraldEngine
import HeraldRedis

/// What the bootstrap script read in one atomic step (`BootstrapScript`): enough to build a
/// `ClusterView` that continues exactly at `seq`. A value.
struct ClusterBootstrap: Sendable {
    let epoch: String
    let seq: Int64
    /// Records in creation order.
    let jobs: [JobRecord]
    /// Finished ids in the order they ended.
    let finished: [JobID]
    let workersByNode: [String: [WorkerInfo]]

    /// Reads it, making `freshEpoch` the epoch when Redis has none (new or lost data).
    static func read(_ connection: RedisConnection, keys: ClusterKeys, freshEpoch: String) throws(ClusterFailure) -> ClusterBootstrap {
        let reply: RedisReply
        do {
            reply = try connection.evaluate(BootstrapScript(keys: .init(keys), args: .init(freshEpoch: freshEpoch)))
        } catch {
            throw .redis(error)
        }
        guard let parts = reply.array, parts.count == 5, let epoch = parts[0].string, let seq = parts[1].integer,
            let pairs = parts[2].array, let finished = parts[3].array, let workerPairs = parts[4].array
        else { throw .unexpected("bootstrap answered \(reply.errorMessage ?? String(describing: reply))") }
        var jobs: [JobRecord] = []
        for index in stride(from: 0, to: pairs.count - 1, by: 2) {
            guard let bytes = pairs[index + 1].bytes, let value = try? JSONParser.parse(bytes), let record = JobRecord(json: value) else {
                throw .unexpected("job \(pairs[index].string ?? "?") has a record that does not parse")
            }
            jobs.append(record)
        }
        var workersByNode: [String: [WorkerInfo]] = [:]
        for index in stride(from: 0, to: workerPairs.count - 1, by: 2) {
            guard let node = workerPairs[index].string, let bytes = workerPairs[index + 1].bytes,
                case .array(let list)? = try? JSONParser.parse(bytes)
            else { continue }
            let workers = list.compactMap { try? WorkerInfo(decoding: $0, at: "workers") }
            if !workers.isEmpty { workersByNode[node] = workers }
        }
        return ClusterBootstrap(
            epoch: epoch, seq: seq, jobs: jobs, finished: finished.compactMap { $0.string.map(JobID.init) }, workersByNode: workersByNode)
    }
}
