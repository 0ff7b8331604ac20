/// What the sort data holds now, for `/metrics`: a copy, taken without touching the disk.
public struct SortCacheFigures: Sendable, Equatable {
    /// Bytes of the `numbers-*.bin` and `sorted-*.bin` files in the data directory.
    public var bytes = 0
    /// How many such files there are.
    public var files = 0
    /// Files removed to keep the bound, since the start.
    public var evictions = 0
    /// The bound (`--sort-cache-bytes`); 0: none.
    public var limitBytes = 0

    public init(bytes: Int = 0, files: Int = 0, evictions: Int = 0, limitBytes: Int = 0) {
        self.bytes = bytes
        self.files = files
        self.evictions = evictions
        self.limitBytes = limitBytes
    }
}
