import Foundation

// The payload is written and read as raw memory; every platform Herald builds on is little-endian,
// so refusing to build elsewhere is simpler than carrying byte-swapping code nobody runs.
#if _endian(big)
    #error("NumbersFile assumes a little-endian host")
#endif

/// The on-disk format of the sort data (`numbers-<count>.bin`, `sorted-<count>.bin`):
///
///     "HRLDNUM1" | count: UInt64 LE | checksum: UInt64 LE (FNV-1a 64 of the payload) | count × UInt32 LE
///
/// Files are written through `AtomicFile`, so a reader sees a whole file or none. Work goes in
/// chunks of `chunkValues` (1 MiB): each chunk ends in a callback that reports progress and may
/// throw to stop (a cancel). Thread: the calling thread; nothing is shared.
enum NumbersFile {
    static let magic = Array("HRLDNUM1".utf8)
    static let headerSize = 24
    static let chunkValues = 1 << 18

    enum Loaded {
        case values([UInt32])
        case missing
        /// The file exists but cannot be trusted (truncated, corrupted, wrong count); words say why.
        case invalid(String)
    }

    /// Loads and verifies the whole file: size, magic, count and checksum.
    /// `chunkDone(n)` is called after each chunk with the number of values read so far.
    static func load(_ url: URL, count: Int, chunkDone: (Int) throws -> Void) throws -> Loaded {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return .missing }
            throw JobFailure("cannot open \(url.lastPathComponent): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let expectedChecksum: UInt64
        switch try checkShape(descriptor, count: count) {
        case .bad(let problem): return .invalid(problem)
        case .good(let checksum): expectedChecksum = checksum
        }
        var checksum = FNV1a64()
        let values = try [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            let bytes = UnsafeMutableRawBufferPointer(buffer)
            while initialized < count {
                let chunk = min(chunkValues, count - initialized)
                let slice = UnsafeMutableRawBufferPointer(rebasing: bytes[(initialized * 4)..<((initialized + chunk) * 4)])
                try preadAll(descriptor, slice, at: headerSize + initialized * 4)
                checksum.add(UnsafeRawBufferPointer(slice))
                initialized += chunk
                try chunkDone(initialized)
            }
        }
        guard checksum.value == expectedChecksum else { return .invalid("the checksum does not match") }
        return .values(values)
    }

    /// Writes `values` atomically. `chunkDone(0)` comes once the temporary file exists, then
    /// `chunkDone(n)` after each chunk; if it throws, the temporary file is removed and whatever was
    /// at `url` stays as it was.
    static func write(_ values: [UInt32], to url: URL, chunkDone: (Int) throws -> Void) throws {
        try AtomicFile.write(to: url) { descriptor in
            try chunkDone(0)
            // A placeholder header, overwritten once the checksum is known; the file is not visible
            // under its name before then anyway.
            try [UInt8](repeating: 0, count: headerSize).withUnsafeBytes { try AtomicFile.writeAll(descriptor, $0) }
            var checksum = FNV1a64()
            try values.withUnsafeBytes { raw in
                var done = 0
                while done < values.count {
                    let size = min(chunkValues, values.count - done)
                    let bytes = UnsafeRawBufferPointer(rebasing: raw[(done * 4)..<((done + size) * 4)])
                    checksum.add(bytes)
                    try AtomicFile.writeAll(descriptor, bytes)
                    done += size
                    try chunkDone(done)
                }
            }
            let header = magic + littleEndianBytes(UInt64(values.count)) + littleEndianBytes(checksum.value)
            let written = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, headerSize, 0) }
            guard written == headerSize else { throw JobFailure("cannot write the header of \(url.lastPathComponent)") }
        }
    }

    /// `limit` values from `offset`, read with pread: the file is never loaded whole.
    /// Thread: any (a page request).
    static func page(_ url: URL, count: Int, offset: Int, limit: Int) throws(EngineError) -> [UInt32] {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw EngineError(.gone, "the sorted values (\(url.lastPathComponent)) are gone; run the sort again")
        }
        defer { close(descriptor) }
        do {
            if case .bad(let problem) = try checkShape(descriptor, count: count) {
                throw JobFailure("\(url.lastPathComponent) is damaged (\(problem)); run the sort again")
            }
            guard offset < count else { return [] }
            var values = [UInt32](repeating: 0, count: min(limit, count - offset))
            try values.withUnsafeMutableBytes { try preadAll(descriptor, $0, at: headerSize + offset * 4) }
            return values
        } catch {
            throw EngineError(.internalError, "\(error)")
        }
    }

    private enum Shape {
        case good(checksum: UInt64)
        case bad(String)
    }

    /// The cheap checks on an open file: size, magic and count. Gives the stored checksum when they pass.
    private static func checkShape(_ descriptor: Int32, count: Int) throws -> Shape {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw JobFailure("fstat failed: \(String(cString: strerror(errno)))") }
        let expected = headerSize + count * 4
        if Int(info.st_size) < expected { return .bad("truncated: \(info.st_size) of \(expected) bytes") }
        if Int(info.st_size) > expected { return .bad("too long: \(info.st_size) of \(expected) bytes") }
        var header = [UInt8](repeating: 0, count: headerSize)
        try header.withUnsafeMutableBytes { try preadAll(descriptor, $0, at: 0) }
        guard Array(header[0..<8]) == magic else { return .bad("the magic is wrong") }
        let stored = littleEndianUInt64(header, at: 8)
        if stored != UInt64(count) { return .bad("it holds \(stored) values, not \(count)") }
        return .good(checksum: littleEndianUInt64(header, at: 16))
    }

    private static func littleEndianUInt64(_ raw: [UInt8], at offset: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(raw[offset + $1]) << (8 * UInt64($1)) }
    }

    private static func littleEndianBytes(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// Fills `buffer` from `offset`, retrying short and interrupted reads; an early end is a failure.
    private static func preadAll(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        var done = 0
        while done < buffer.count {
            let got = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw JobFailure(got < 0 ? "read failed: \(String(cString: strerror(errno)))" : "the file ended early") }
            done += got
        }
    }
}
