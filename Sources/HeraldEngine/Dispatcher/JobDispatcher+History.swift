import Dispatch

/// History pages (`GET /api/jobs?state=&kind=&before=&limit=`): the jobs in memory and the archive.
extension JobDispatcher {
    /// Picks from the jobs in memory on `queue` (a pass over them, no I/O), then lets the history
    /// store add the archive's jobs on its own threads; `reply` runs there (or on `queue` without a
    /// store). The dispatcher never reads a file for a page. Thread: any; never waits.
    func readHistory(_ query: HistoryQuery, reply: @escaping @Sendable (Result<HistoryPage, EngineError>) -> Void) {
        guard HistoryQuery.limits.contains(query.limit) else {
            return reply(
                .failure(
                    .badRequest(
                        field: "limit", "must be an integer from \(HistoryQuery.limits.lowerBound) to \(HistoryQuery.limits.upperBound)")))
        }
        queue.async { [self] in
            var picker = HistoryPicker(query)
            picker.offerMemory(table.all)
            guard let history else { return reply(.success(picker.page())) }
            history.page(picker) { reply(.success($0)) }
        }
    }
}
