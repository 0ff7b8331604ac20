import Dispatch
import Foundation
import Synchronization

/// The shared state of one search while its threads scan: which file is next, the counters, the
/// progress total and the batch of matches not yet streamed.
///
/// Threads: `scanStripe` runs on one thread per stripe (`DispatchQueue.concurrentPerform`, or the
/// job's worker thread itself when there is one stripe), each pulling files from the atomic `next`
/// index; counters are atomics, the batch and the total sit behind mutexes. `flush` and the
/// `summary` run on the job's worker thread after the stripes end.
final class SearchScan: Sendable {
    /// Bytes read per chunk; also how much work happens between two cancel checks. Small, so that
    /// the kernel's copy from the page cache lands in a buffer the core's cache holds: with 1 MiB
    /// chunks (the benchmark corpus's 150 KB files then read in one call) a search spent 10–25 %
    /// more time in the kernel (docs/benchmarks.md). Lines are counted lazily across chunks, so more
    /// chunks per file cost no count where nothing matches.
    static let chunkSize = 1 << 16
    /// Where the binary test looks for a NUL.
    static let sniffSize = 8192
    static let batchSize = 64
    static let batchNanoseconds: UInt64 = 100_000_000

    let context: JobContext
    let matcher: LineMatcher
    let files: [SearchFile]
    /// Each stripe's buffer: `chunkSize`; smaller only in tests, to put many chunk edges in small files
    /// (the binary test then sees the first `bufferSize` bytes only). Constant.
    let bufferSize: Int
    private let cap: Int
    private let next = Atomic<Int>(0)
    private let matches = Atomic<Int>(0)
    private let filesScanned = Atomic<Int>(0)
    private let bytesScanned = Atomic<Int64>(0)
    /// The progress total: listed sizes, less binary and vanished files, corrected for files that changed.
    private let total: Protected<Int64>
    private let batch = Protected<(items: [JSONValue], since: UInt64)>(([], DispatchTime.now().uptimeNanoseconds))

    init(context: JobContext, matcher: LineMatcher, files: [SearchFile], bufferSize: Int = SearchScan.chunkSize) {
        self.context = context
        self.matcher = matcher
        self.files = files
        self.bufferSize = max(1, bufferSize)
        self.cap = max(0, context.environment.maxSearchResults)
        let listed = files.reduce(Int64(0)) { $0 + $1.size }
        self.total = Protected(listed)
        context.progress.report(completed: 0, total: listed, message: "scanning")
    }

    /// Thread: the job's worker thread, after the stripes ended.
    var summary: JSONObject {
        let found = matches.load(ordering: .relaxed)
        return [
            "matches": .int(Int64(found)), "files": .int(Int64(filesScanned.load(ordering: .relaxed))),
            "bytes": .int(bytesScanned.load(ordering: .relaxed)), "capped": .bool(found > cap),
        ]
    }

    /// One thread's share: files from the shared index until none are left or the job is cancelled.
    /// Thread: a stripe's thread.
    func scanStripe() {
        let buffer = ScanBuffer(capacity: bufferSize)
        while !context.isCancelled {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < files.count else { return }
            scan(files[index], buffer)
        }
    }

    /// Reads one file chunk by chunk, each chunk cut at its last newline so lines stay whole (the
    /// buffer grows for a line longer than a chunk). The first chunk starts with a small read for the
    /// binary test, so a binary file costs 8 KiB, then fills the rest of the buffer before it is
    /// scanned. Lines are counted only where a match needs them: a chunk without a match is not
    /// counted, and the next match's line number is then found by counting the file again up to its
    /// chunk (`lineNumber`). Thread: a stripe's thread.
    private func scan(_ file: SearchFile, _ buffer: ScanBuffer) {
        // O_NOFOLLOW: a file swapped for a symlink since the listing is not followed either.
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return adjustTotal(-file.size) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return adjustTotal(-file.size) }
        var carry = 0  // Bytes of an unfinished line kept at the start of the buffer.
        var line: Int? = 1  // The number of the line the next chunk starts with; nil when not counted.
        var offset: Int64 = 0  // Where in the file the next chunk starts (its carried bytes included).
        var read: Int64 = 0
        var first = true
        while true {
            if carry == buffer.capacity { buffer.grow() }
            var got = 0
            var atEnd = false
            if first {
                first = false
                let sniff = min(Self.sniffSize, buffer.capacity)
                got = Self.readFully(descriptor, buffer.base, sniff)
                if memchr(buffer.base, 0, got) != nil { return adjustTotal(-file.size) }  // Binary.
                atEnd = got < sniff
            }
            if !atEnd {
                let wanted = buffer.capacity - carry - got
                let more = Self.readFully(descriptor, buffer.base + carry + got, wanted)
                got += more
                atEnd = more < wanted
            }
            let filled = carry + got
            let end = atEnd ? filled : Self.lineEnd(buffer.base, filled)
            if end > 0 {
                let text = UnsafeRawBufferPointer(start: buffer.base, count: end)
                let known = line
                line = matcher.scan(text, firstLine: known ?? Self.lineNumber(at: offset, in: descriptor, buffer)) { text, number in
                    record(file, line: number, text: text)
                }
            }
            offset += Int64(end)
            read += Int64(got)
            context.progress.add(Int64(got))
            carry = filled - end
            if carry > 0 { memmove(buffer.base, buffer.base + end, carry) }
            // After every chunk, a file's last too: its matches must not wait for the next file.
            flushIfDue()
            if atEnd || context.isCancelled { break }
        }
        buffer.shrink()
        filesScanned.wrappingAdd(1, ordering: .relaxed)
        bytesScanned.wrappingAdd(read, ordering: .relaxed)
        if read != file.size { adjustTotal(read - file.size) }
    }

    /// Counts one matching line and queues it for streaming. Thread: a stripe's thread.
    private func record(_ file: SearchFile, line: Int, text: UnsafeRawBufferPointer) {
        // Counted always; kept only up to the cap, so the text is made only for kept matches.
        guard matches.wrappingAdd(1, ordering: .relaxed).newValue <= cap else { return }
        let item: JSONValue = ["file": .string(file.relative), "line": .int(Int64(line)), "text": .string(Self.excerpt(text))]
        let ready: [JSONValue]? = batch.withLock { batch in
            batch.items.append(item)
            return batch.items.count >= Self.batchSize ? Self.take(&batch) : nil
        }
        if let ready { context.emitResults(ready) }
    }

    /// Streams the batch if it is older than the batch interval. Thread: any.
    ///
    /// The clock is read under the lock: a reading taken before it can be older than a batch another
    /// stripe started meanwhile. The comparison adds rather than subtracts, so it cannot underflow.
    func flushIfDue() {
        let ready: [JSONValue]? = batch.withLock { batch in
            guard !batch.items.isEmpty else { return nil }
            let now = DispatchTime.now().uptimeNanoseconds
            return now >= batch.since + Self.batchNanoseconds ? Self.take(&batch) : nil
        }
        if let ready { context.emitResults(ready) }
    }

    /// Streams whatever is left. Thread: the worker thread, after every stripe ended.
    func flush() {
        context.emitResults(batch.withLock { Self.take(&$0) })
    }

    private static func take(_ batch: inout (items: [JSONValue], since: UInt64)) -> [JSONValue] {
        defer { batch = ([], DispatchTime.now().uptimeNanoseconds) }
        return batch.items
    }

    /// Keeps the bar's total equal to the bytes that will really be scanned. Under the mutex, so two
    /// threads' corrections cannot be stored in the wrong order. Thread: a stripe's thread.
    private func adjustTotal(_ delta: Int64) {
        total.withLock { total in
            total += delta
            context.progress.setTotal(total)
        }
    }

    /// The line trimmed of surrounding whitespace and cut to at most 240 characters. Only the first
    /// 4 KiB are decoded: a megabyte-long minified line costs no more than a short one. Thread: any.
    static func excerpt(_ line: UnsafeRawBufferPointer) -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
        var start = 0
        while start < line.count, isSpace(line[start]) { start += 1 }
        let decoded = String(decoding: line[start..<min(line.count, start + 4096)], as: UTF8.self)
        return trimmed(String(trimmed(decoded).prefix(240)))
    }

    /// `text.trimmingCharacters(in: .whitespacesAndNewlines)` without Foundation's detour through
    /// NSString, which cost 12 µs a line (profiled: 3 % of the benchmark's search, 218 matches, once
    /// the scan itself was fast). The same set,
    /// tested a scalar at a time from each end; every character in it is one UTF-16 unit, so
    /// trimming scalars and trimming NSString's units agree. Thread: any.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        var lower = scalars.startIndex
        var upper = scalars.endIndex
        while lower < upper, whitespace.contains(scalars[lower]) { lower = scalars.index(after: lower) }
        while upper > lower, whitespace.contains(scalars[scalars.index(before: upper)]) { upper = scalars.index(before: upper) }
        return lower == scalars.startIndex && upper == scalars.endIndex ? text : String(scalars[lower..<upper])
    }

    /// What `trimmed` removes. A constant, read from any thread.
    private static let whitespace = CharacterSet.whitespacesAndNewlines

    /// The end of the last complete line in `base[0..<count]` (after its newline), or 0 if none.
    /// Thread: any.
    private static func lineEnd(_ base: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
        var index = count
        while index > 0, base[index - 1] != 0x0A { index -= 1 }
        return index
    }

    /// The number of the line that starts at `offset`: one more than the newlines before it, read
    /// again from the file into the buffer's spare space (from the page cache: the scan read these
    /// bytes moments ago). Asked only by a match in a chunk after one that was not counted. A file
    /// that changed since its first read gives the count of what it holds now. Thread: a stripe's
    /// thread.
    static func lineNumber(at offset: Int64, in descriptor: Int32, _ buffer: ScanBuffer) -> Int {
        var line = 1
        var done: Int64 = 0
        while done < offset {
            let wanted = Int(min(Int64(buffer.spareCapacity), offset - done))
            let got = pread(descriptor, buffer.spare, wanted, off_t(done))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            line += LineMatcher.countNewlines(buffer.spare, got)
            done += Int64(got)
        }
        return line
    }

    /// Reads until `wanted` bytes or the end of the file; a read error ends the file early. Thread: any.
    private static func readFully(_ descriptor: Int32, _ target: UnsafeMutablePointer<UInt8>, _ wanted: Int) -> Int {
        var done = 0
        while done < wanted {
            let got = Glibc.read(descriptor, target + done, wanted - done)
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            done += got
        }
        return done
    }
}
