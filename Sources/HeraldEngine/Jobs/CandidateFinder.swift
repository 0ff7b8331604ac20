import Foundation

/// Finds the candidates of one buffer (positions where the query's rare pair sits, see
/// `RareBytePair`), choosing how as it learns how common the pair's bytes are in this buffer.
///
/// First with glibc's `memchr` on one byte of the pair, each hit checked for the other byte:
/// `memchr` is vectorised for the CPU it runs on (85 GB/s over the benchmark corpus for a byte that
/// is not there, against 22 GB/s for the pair's SSE2 compares, since the build targets baseline
/// x86-64), but costs a call per hit. So once hits come more often than one per `sparse` bytes
/// (judged after `patience` of them), it tries the pair's other byte, then the pair's wide compares,
/// which cost the same however common the bytes are. Only a byte with one value is searched this
/// way: a letter that matches both cases would need two searches.
///
/// Which byte is rare differs from text to text: the table behind `RareBytePair` ranks "q" rarer
/// than "-", but the benchmark corpus has a "q" every 70 bytes and no "-" outside the needle.
///
/// Thread: the one stripe that scans the buffer; a local value, never shared.
struct CandidateFinder {
    /// Below one hit per this many bytes, `memchr` beats the wide compares (a call and a check cost
    /// about 20 ns, the compares 0.045 ns a byte).
    static let sparse = 1024
    static let patience = 8

    private let pair: RareBytePair
    /// 0 and 1: `memchr` on the pair's first, then second byte (skipped when it has two values);
    /// 2: the pair's wide compares.
    private(set) var stage = 0
    private var hits = 0
    /// Where the current stage began: hits per byte are counted from there.
    private var stageStart = 0

    /// `start`: where the buffer's search starts (hits per byte are counted from there).
    init(pair: RareBytePair, start: Int = 0) {
        self.pair = pair
        stageStart = start
    }

    /// The first candidate in `from...last`, or nil; the same contract as `RareBytePair.next`.
    mutating func next(in base: UnsafePointer<UInt8>, from: Int, last: Int) -> Int? {
        var from = from
        while stage < 2 {
            guard let (offset, byte) = single(stage) else {
                advance(to: from)
                continue
            }
            guard from <= last, let hit = memchr(base + from + offset, Int32(byte), last - from + 1) else { return nil }
            let candidate = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) - base - offset
            hits += 1
            if hits >= Self.patience, candidate - stageStart < hits * Self.sparse {
                // Too common here: the next way, from this candidate on (it is checked there).
                advance(to: candidate)
                from = candidate
                continue
            }
            if pair.sits(at: base + candidate) { return candidate }
            from = candidate + 1
        }
        return pair.next(in: base, from: from, last: last)
    }

    /// The byte that stage searches with `memchr`, and its offset in the query; nil when it has two
    /// values (a letter when ignoring case) or is the same offset as the first.
    private func single(_ stage: Int) -> (offset: Int, byte: UInt8)? {
        if stage == 0 { return pair.byte1 == pair.other1 ? (pair.offset1, pair.byte1) : nil }
        return pair.byte2 == pair.other2 && pair.offset2 != pair.offset1 ? (pair.offset2, pair.byte2) : nil
    }

    private mutating func advance(to position: Int) {
        stage += 1
        hits = 0
        stageStart = position
    }
}
