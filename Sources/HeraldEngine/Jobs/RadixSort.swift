/// LSD radix sort of UInt32 in four passes of 8 bits: linear time, stable, and made of plain loops
/// with natural points to report progress and notice a cancel. Memory: one scratch array as large
/// as the input (2× the data in all).
///
/// Thread: the calling thread (the sort job's worker); nothing is shared.
enum RadixSort {
    /// Values handled between two `step` calls (about 1 MiB of data).
    static let chunk = 1 << 18
    /// One counting pass plus four scatter passes: `step` receives work done in these units of n.
    static let passes = 5

    /// Sorts ascending. `step(done)` is called after each chunk with the element-passes done so far
    /// (up to `passes * values.count`); it may throw to stop, which leaves `values` unordered.
    static func sort(_ values: inout [UInt32], step: (Int) throws -> Void) throws {
        let count = values.count
        guard count > 1 else { return }
        // All four histograms in one pass over the data, instead of one pass per digit.
        var histograms = [Int](repeating: 0, count: 4 * 256)
        var done = 0
        try values.withUnsafeBufferPointer { source in
            try histograms.withUnsafeMutableBufferPointer { counts in
                for start in stride(from: 0, to: count, by: chunk) {
                    for value in source[start..<min(count, start + chunk)] {
                        counts[Int(value & 0xFF)] += 1
                        counts[256 + Int((value >> 8) & 0xFF)] += 1
                        counts[512 + Int((value >> 16) & 0xFF)] += 1
                        counts[768 + Int(value >> 24)] += 1
                    }
                    done += min(chunk, count - start)
                    try step(done)
                }
            }
        }
        var scratch = [UInt32](repeating: 0, count: count)
        for digit in 0..<4 {
            let counts = histograms[(digit * 256)..<((digit + 1) * 256)]
            // Every value has the same digit here (common for the top byte of small ranges): skip.
            if counts.contains(count) {
                done += count
                try step(done)
                continue
            }
            var offsets = [Int](repeating: 0, count: 256)
            var sum = 0
            for (bucket, size) in counts.enumerated() {
                offsets[bucket] = sum
                sum += size
            }
            let shift = UInt32(digit * 8)
            try values.withUnsafeBufferPointer { source in
                try scratch.withUnsafeMutableBufferPointer { target in
                    try offsets.withUnsafeMutableBufferPointer { next in
                        for start in stride(from: 0, to: count, by: chunk) {
                            for value in source[start..<min(count, start + chunk)] {
                                let bucket = Int((value >> shift) & 0xFF)
                                target[next[bucket]] = value
                                next[bucket] += 1
                            }
                            done += min(chunk, count - start)
                            try step(done)
                        }
                    }
                }
            }
            swap(&values, &scratch)
        }
    }
}
