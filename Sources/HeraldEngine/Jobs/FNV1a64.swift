/// FNV-1a, 64 bits: the checksum of a numbers file's payload. Not cryptographic; it only has to
/// catch a truncated, torn or bit-flipped file, and it can be fed chunk by chunk.
/// Thread: whichever owns the value (a sort's worker thread).
struct FNV1a64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        value = hash
    }
}
