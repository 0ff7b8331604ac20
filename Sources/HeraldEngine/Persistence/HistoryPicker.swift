/// Picks one history page out of jobs offered in any order: first every job in memory, then the
/// archive's segments. Keeps the newest `limit + 1` that the query admits (the extra one tells
/// whether there is a next page), each id once; a job in memory hides an archived copy of itself
/// (after a crash one can be in both). A plain value without I/O: the dispatcher offers memory on
/// its queue, then hands the value to an archive reader.
struct HistoryPicker: Sendable {
    let query: HistoryQuery
    /// Every id offered from memory: an archived job with one of them is not offered again.
    private var inMemory: Set<JobID> = []
    private var kept: [JobRecord] = []
    private var keptIDs: Set<JobID> = []
    /// The oldest key kept, once `kept` holds `capacity` jobs and is sorted: a job older than it
    /// cannot make the page.
    private var floor: HistoryCursor?

    init(_ query: HistoryQuery) {
        self.query = query
    }

    private var capacity: Int { query.limit + 1 }

    /// Offers every job in memory, whatever its state. Call once, before any `offer`.
    mutating func offerMemory(_ records: some Sequence<JobRecord>) {
        for record in records {
            inMemory.insert(record.id)
            consider(record)
        }
    }

    /// Offers an archived job.
    mutating func offer(_ record: JobRecord) {
        guard !inMemory.contains(record.id) else { return }
        consider(record)
    }

    private mutating func consider(_ record: JobRecord) {
        guard query.admits(record), !keptIDs.contains(record.id) else { return }
        if let floor, HistoryCursor(record) < floor { return }
        kept.append(record)
        keptIDs.insert(record.id)
        // Sorting only when twice as many as needed are held keeps offering linear on average.
        if kept.count >= 2 * capacity { trim() }
    }

    /// Whether no job whose key lies in `keys` (an archive segment's oldest to newest) can still
    /// make the page: all are at or past the cursor, or older than a full page's oldest.
    mutating func canSkip(_ keys: ClosedRange<HistoryCursor>) -> Bool {
        if let before = query.before, keys.lowerBound >= before { return true }
        if kept.count >= capacity { trim() }
        guard let floor else { return false }
        return keys.upperBound < floor
    }

    private mutating func trim() {
        kept.sort { HistoryCursor($0) > HistoryCursor($1) }
        if kept.count > capacity {
            for record in kept[capacity...] { keptIDs.remove(record.id) }
            kept.removeSubrange(capacity...)
        }
        floor = kept.count == capacity ? kept.last.map(HistoryCursor.init) : nil
    }

    /// The page: the newest `limit` jobs, and the last one's key when an older match exists.
    mutating func page() -> HistoryPage {
        trim()
        let jobs = Array(kept.prefix(query.limit))
        return HistoryPage(jobs: jobs, next: kept.count > query.limit ? jobs.last.map(HistoryCursor.init) : nil)
    }
}
