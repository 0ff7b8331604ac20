import CSystemExtras

/// What the allocator holds for the process, for `/metrics` (`herald_heap_bytes`): the live heap
/// against what the arenas keep free. A resident size that rises while `inUseBytes` stays level is the
/// allocator's, not the program's (docs/operations.md#monitoring).
public struct HeapFigures: Sendable, Equatable {
    /// Bytes of live blocks, in every arena and mapped on their own.
    public var inUseBytes: Int
    /// Bytes of free chunks the arenas keep, resident or not.
    public var freeBytes: Int

    public init(inUseBytes: Int, freeBytes: Int) {
        self.inUseBytes = inUseBytes
        self.freeBytes = freeBytes
    }

    /// Reads glibc's figures now (`mallinfo2`); nil where malloc is not glibc's and answers zeros (a
    /// sanitizer's allocator, a preloaded one): a live process always holds something. Any thread;
    /// takes each arena's lock in turn, for about as long as a walk of its free chunks, so it is read
    /// per `/metrics` scrape (on a global queue: `EngineRequest.metrics`), not per event.
    public static func read() -> HeapFigures? {
        var inUse = 0
        var free = 0
        herald_heap_figures(&inUse, &free)
        return inUse == 0 && free == 0 ? nil : HeapFigures(inUseBytes: inUse, freeBytes: free)
    }
}
