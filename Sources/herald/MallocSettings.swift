import CSystemExtras

/// How `herald serve` sets glibc's allocator up, before it starts any other thread (docs/operations.md):
/// - **Arenas.** glibc's default is up to 8 per core, and a thread that finds the arenas busy gets
///   one of its own; every job runs on a thread of its own, so over a long run the server held the
///   same data in ever more arenas, each keeping what it had freed, and its RSS moved in steps of
///   about 7 MB (docs/soak.md). Two arenas.
/// - **Large blocks.** glibc maps blocks from 128 KiB up with pages of their own, given back when
///   freed, but raises that threshold to the size of each such block freed, so that after the first
///   sort (8 MB of numbers) every later one came from an arena and stayed resident until the next
///   trim: RSS went up and down by 8 MB with the sorts, which a soak cannot tell from growth. The
///   threshold stays at 128 KiB.
/// `MALLOC_ARENA_MAX` and `MALLOC_MMAP_THRESHOLD_` in the environment still win.
enum MallocSettings {
    static let serverArenas: Int32 = 2
    static let mmapThreshold: Int32 = 128 << 10

    /// Thread: the main thread, before the server starts any other (glibc applies the arena limit to
    /// arenas made from then on).
    static func apply(environment: [String: String]) {
        if environment["MALLOC_ARENA_MAX"] == nil { _ = herald_limit_malloc_arenas(serverArenas) }
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil { _ = herald_fix_mmap_threshold(mmapThreshold) }
    }
}
