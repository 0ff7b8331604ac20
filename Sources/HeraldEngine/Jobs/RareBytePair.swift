/// Finds where a query may start: the positions at which the query's two rarest bytes (by
/// `ByteRank`) both sit where the query has them, tested 32 positions at a time with wide compares.
/// `LineMatcher` then compares the whole query at each candidate.
///
/// Why: looking for the query's first byte stops wherever that byte is common (a query starting with
/// "q" stopped at every "quebec" and "queue" of the benchmark corpus, a call to memchr and a memcmp
/// each); requiring two rare bytes at their distance leaves almost no false candidates. This is the
/// idea of ripgrep's prefilter (its memchr crate's "packed pair"), with our own frequency table.
///
/// Ignoring case, a letter is compared after OR-ing 0x20 into the text's byte: for a lower-case
/// ASCII letter `c`, `b | 0x20 == c` holds exactly when `b` is `c` or its upper case, the ASCII-only
/// folding of `LineMatcher`, so nothing is missed; the exact comparison decides.
///
/// Thread: any; a constant value.
struct RareBytePair: Sendable {
    /// Where the two bytes sit in the query (equal for a one-byte query).
    let offset1: Int
    let offset2: Int
    /// The bytes, as in the query (lower-cased when ignoring case).
    let byte1: UInt8
    let byte2: UInt8
    /// Their upper case when ignoring case and they are letters; else the bytes themselves.
    let other1: UInt8
    let other2: UInt8

    /// `needle`: the query's bytes, already ASCII-lower-cased when `ignoringCase`. Not empty.
    init(needle: [UInt8], ignoringCase: Bool) {
        precondition(!needle.isEmpty, "an empty query has no bytes to look for")
        let others = needle.map { ignoringCase && $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
        // A letter that matches both cases is as common as the commoner of the two.
        let ranks = needle.indices.map { max(ByteRank.of(needle[$0]), ByteRank.of(others[$0])) }
        let first = ranks.indices.min { ranks[$0] < ranks[$1] }!
        // The second: the rarest other byte value if there is one (two offsets of one byte value
        // predict less), else the same value at another offset, else (one byte) the same offset.
        let rest = ranks.indices.filter { $0 != first }
        let distinct = rest.filter { needle[$0] != needle[first] }
        let second = (distinct.isEmpty ? rest : distinct).min { ranks[$0] < ranks[$1] } ?? first
        offset1 = first
        offset2 = second
        byte1 = needle[first]
        byte2 = needle[second]
        other1 = others[first]
        other2 = others[second]
    }

    /// The first position in `from...last` where both bytes sit at their offsets, or nil. The caller
    /// guarantees that `base[last + max(offset1, offset2)]` is readable: `last` is the last position
    /// at which the whole query still fits. Thread: any.
    func next(in base: UnsafePointer<UInt8>, from: Int, last: Int) -> Int? {
        let raw = UnsafeRawPointer(base)
        // SIMD16 twice rather than SIMD32: the build targets baseline x86-64 (SSE2, 16-byte
        // registers), where SIMD32's operators compile to a loop over the lanes. The OR works on
        // the same 16 bytes seen as two UInt64s: in a debug build (the tests) `|` on SIMD16<UInt8>
        // is a loop over 16 lanes, which made searches 30 times slower; in release both are `por`.
        let want1 = SIMD16<UInt8>(repeating: byte1)
        let want2 = SIMD16<UInt8>(repeating: byte2)
        // 0x20 in every byte for a letter that matches both cases (c ^ C), else 0.
        let or1 = SIMD2<UInt64>(repeating: UInt64(byte1 ^ other1) &* 0x0101_0101_0101_0101)
        let or2 = SIMD2<UInt64>(repeating: UInt64(byte2 ^ other2) &* 0x0101_0101_0101_0101)
        var position = from
        // Whole blocks: positions up to position + 31 are all <= last, so every load is in bounds.
        while position &+ 31 <= last {
            let low1 = Self.bytes(raw.loadUnaligned(fromByteOffset: position &+ offset1, as: SIMD2<UInt64>.self) | or1)
            let low2 = Self.bytes(raw.loadUnaligned(fromByteOffset: position &+ offset2, as: SIMD2<UInt64>.self) | or2)
            let high1 = Self.bytes(raw.loadUnaligned(fromByteOffset: position &+ offset1 &+ 16, as: SIMD2<UInt64>.self) | or1)
            let high2 = Self.bytes(raw.loadUnaligned(fromByteOffset: position &+ offset2 &+ 16, as: SIMD2<UInt64>.self) | or2)
            let low = Self.words((low1 .== want1) .& (low2 .== want2))
            let high = Self.words((high1 .== want1) .& (high2 .== want2))
            let either = low | high
            if either[0] | either[1] != 0 {
                // A hit lane is all ones; lane k is byte k of the little-endian words (x86-64, arm64).
                if low[0] != 0 { return position &+ low[0].trailingZeroBitCount >> 3 }
                if low[1] != 0 { return position &+ 8 &+ low[1].trailingZeroBitCount >> 3 }
                if high[0] != 0 { return position &+ 16 &+ high[0].trailingZeroBitCount >> 3 }
                return position &+ 24 &+ high[1].trailingZeroBitCount >> 3
            }
            position &+= 32
        }
        while position <= last {
            if sits(at: base + position) { return position }
            position &+= 1
        }
        return nil
    }

    /// Whether both bytes sit at their offsets from `start`. Thread: any.
    @inline(__always)
    func sits(at start: UnsafePointer<UInt8>) -> Bool {
        let at1 = start[offset1]
        let at2 = start[offset2]
        return (at1 == byte1 || at1 == other1) && (at2 == byte2 || at2 == other2)
    }

    /// Two words seen as their 16 bytes (free: the same register).
    @inline(__always)
    private static func bytes(_ words: SIMD2<UInt64>) -> SIMD16<UInt8> { unsafeBitCast(words, to: SIMD16<UInt8>.self) }

    /// The mask as two 64-bit words. Why not `any(mask)`: in a larger loop the compiler calls a
    /// generic reduction for it instead of one instruction; reading words stays a few instructions.
    @inline(__always)
    private static func words(_ mask: SIMDMask<SIMD16<Int8>>) -> SIMD2<UInt64> {
        unsafeBitCast(mask, to: SIMD2<UInt64>.self)
    }
}
