import CSystemExtras

/// How many malloc arenas `herald serve` lets glibc make. glibc's default is up to 8 per core, and a
/// thread that finds the arenas busy gets one of its own; every job runs on a thread of its own, so
/// over a long run the server held the same data in ever more arenas, each keeping what it had
/// freed, and its RSS moved in steps of about 7 MB (docs/soak.md). What two arenas cost is in
/// docs/operations.md; `MALLOC_ARENA_MAX` in the environment still wins.
enum MallocArenas {
    static let serverLimit: Int32 = 2

    /// Caps the arenas unless the operator chose with `MALLOC_ARENA_MAX`. Thread: the main thread,
    /// before the server starts any other (glibc applies it to arenas made from then on).
    static func limit(environment: [String: String]) {
        guard environment["MALLOC_ARENA_MAX"] == nil else { return }
        _ = herald_limit_malloc_arenas(serverLimit)
    }
}
