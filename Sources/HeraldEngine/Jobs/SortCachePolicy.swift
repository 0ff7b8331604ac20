/// Which sort files go when the sort data is over its bound: the least recently used first, never
/// one in use. Knows names, sizes and an order of use only; `SortCache` does the file work.
/// A plain value: whoever holds it guards it (`SortCache` keeps it behind its lock).
struct SortCachePolicy: Equatable {
    /// The most bytes the files may hold once none is in use; 0: no bound.
    let limitBytes: Int
    /// The files known to exist: their size and when they were last used (a tick of `clock`).
    private var entries: [String: Entry] = [:]
    /// How many users each file has now (a sort reading or writing it, a page being read). A file
    /// may be in use before it exists (a sort writes it), so this is apart from `entries`.
    private var users: [String: Int] = [:]
    /// Counts uses: a later use has a larger tick, so the smallest is the least recent.
    private var clock: UInt64 = 0
    /// The bytes of every known file.
    private(set) var totalBytes = 0
    /// Files removed to keep the bound, since the start.
    private(set) var evictions = 0

    private struct Entry: Equatable {
        var bytes: Int
        var lastUse: UInt64
    }

    init(limitBytes: Int) { self.limitBytes = max(0, limitBytes) }

    /// How many files are known to exist.
    var fileCount: Int { entries.count }

    /// The known files, least recently used first.
    var namesByUse: [String] { entries.sorted { $0.value.lastUse < $1.value.lastUse }.map(\.key) }

    func isInUse(_ name: String) -> Bool { users[name, default: 0] > 0 }

    /// One more user of `name`: it is not evicted until every user is done.
    mutating func beginUse(_ name: String) { users[name, default: 0] += 1 }

    /// One user of `name` is done; the file counts as used now (if it exists).
    mutating func endUse(_ name: String) {
        guard let count = users[name] else { return assertionFailure("endUse(\(name)) without beginUse") }
        users[name] = count > 1 ? count - 1 : nil
        touch(name)
    }

    /// `name` was used now: it goes last.
    mutating func touch(_ name: String) {
        guard entries[name] != nil else { return }
        clock += 1
        entries[name]?.lastUse = clock
    }

    /// `name` exists now with `bytes` (written, or found at start-up), used now.
    mutating func stored(_ name: String, bytes: Int) {
        clock += 1
        totalBytes += bytes - (entries[name]?.bytes ?? 0)
        entries[name] = Entry(bytes: bytes, lastUse: clock)
    }

    /// `name` no longer exists (it was found missing, or removed by someone else).
    mutating func forget(_ name: String) {
        totalBytes -= entries.removeValue(forKey: name)?.bytes ?? 0
    }

    /// The files to remove now to come within the bound, least recently used first, skipping files
    /// in use; they are forgotten here and counted as evictions. The total may stay over the bound
    /// while the files in use alone exceed it.
    mutating func evict() -> [String] {
        guard limitBytes > 0, totalBytes > limitBytes else { return [] }
        var leaving: [String] = []
        for name in namesByUse where totalBytes > limitBytes && !isInUse(name) {
            forget(name)
            leaving.append(name)
        }
        evictions += leaving.count
        return leaving
    }
}
