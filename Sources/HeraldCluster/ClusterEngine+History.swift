import Foundation
import HeraldEngine
import HeraldRedis

/// Job history across the cluster (`GET /api/jobs?state=&kind=&before=&limit=` on any node): every
/// node's jobs, from Redis. `history` orders every job Redis keeps a record of by `createdAt` (a
/// sorted set: equal scores come back in reverse order of id, which is history's own order); the
/// records are in `jobs` (recent) or `archive` (the finished ones beyond them, `--history-jobs`).
extension ClusterEngine {
    /// Jobs looked at per round trip, and at most per page: a filter that matches almost nothing
    /// ends the page early, with a `next` to go on from.
    static let historyWindow = 200
    static let historyScanLimit = 20_000

    /// Answers a history query from Redis. Thread: `commandQueue`.
    func history(_ query: HistoryQuery) -> Result<HistoryPage, EngineError> {
        if let refusal = unavailable() { return .failure(refusal) }
        let keys = settings.keys
        let newest = query.before.map { String($0.createdAt) } ?? "+inf"
        var found: [JobRecord] = []
        var lastSeen: HistoryCursor?
        var lookedAt = 0
        var full = false
        do {
            let connection = try commands()
            try NewestFirstScan(window: Self.historyWindow).scan(from: newest) { max, min, count in
                let limit = count.map { ["LIMIT", "0", String($0)] } ?? []
                let flat = try connection.command(["ZREVRANGEBYSCORE", keys.history, max, min, "WITHSCORES"] + limit).array ?? []
                return stride(from: 0, to: flat.count - 1, by: 2).compactMap { index in
                    guard let member = flat[index].string, let score = flat[index + 1].string else { return nil }
                    return (member, score)
                }
            } visit: { ids in
                lookedAt += ids.count
                let recent = try connection.command(["HMGET", keys.jobs] + ids).array ?? []
                let archived = try connection.command(["HMGET", keys.archive] + ids).array ?? []
                for (index, id) in ids.enumerated() {
                    let bytes = (index < recent.count ? recent[index].bytes : nil) ?? (index < archived.count ? archived[index].bytes : nil)
                    guard let bytes, let value = try? JSONParser.parse(bytes), let record = JobRecord(json: value), record.id.rawValue == id
                    else { continue }
                    lastSeen = HistoryCursor(record)
                    guard query.admits(record) else { continue }
                    // One more than a page tells whether there is a next one.
                    if found.count == query.limit {
                        full = true
                        return false
                    }
                    found.append(record)
                }
                return lookedAt < Self.historyScanLimit
            }
        } catch {
            return .failure(commandFailed(error))
        }
        if full { return .success(HistoryPage(jobs: found, next: found.last.map(HistoryCursor.init))) }
        if lookedAt < Self.historyScanLimit { return .success(HistoryPage(jobs: found, next: nil)) }
        // Looked at as many as one page may: go on from the last one looked at.
        return .success(HistoryPage(jobs: found, next: lastSeen))
    }
}
