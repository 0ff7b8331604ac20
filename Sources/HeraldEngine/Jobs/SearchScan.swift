import Dispatch
import Foundation
import Synchronization

/// The shared state of one search while its threads scan: which part is next, the counters, the
/// progress total, and the merge that puts the matches in order.
///
/// Threads: `scanAll` runs `scanStripe` on `threads` threads (the job's worker thread and
/// `threads - 1` threads of its own, which it waits for); each stripe pulls parts from the atomic
/// `next` index. Counters are atomics, the total sits behind a mutex, the matches in `merge` (which
/// says how it is guarded). Every stripe checks the job's cancel flag after each chunk and before
/// each part, so a cancel stops all of them within a chunk. `flush` and `summary` run on the job's
/// worker thread after the stripes ended.
final class SearchScan: Sendable {
    /// Bytes read per chunk; also how much work happens between two cancel checks. Small, so that
    /// the kernel's copy from the page cache lands in a buffer the core's cache holds: with 1 MiB
    /// chunks (the benchmark corpus's 150 KB files then read in one call) a search spent 10–25 %
    /// more time in the kernel (docs/benchmarks.md). Lines are counted lazily across chunks, so more
    /// chunks per file cost no count where nothing matches.
    static let chunkSize = 1 << 16
    /// Where the binary test looks for a NUL.
    static let sniffSize = 8192
    /// Below this many bytes per thread, starting another thread costs more than it brings.
    static let bytesPerThread: Int64 = 1 << 20

    let context: JobContext
    let matcher: LineMatcher
    let files: [SearchFile]
    let parts: [SearchPart]
    /// How many stripes `scanAll` runs: at most the threads asked for, the parts, and one per
    /// `bytesPerThread` of the listed files.
    let threads: Int
    /// Each stripe's buffer: `chunkSize`; smaller only in tests, to put many chunk edges in small files
    /// (the binary test then sees the first `bufferSize` bytes only). Constant.
    let bufferSize: Int
    private let cap: Int
    private let merge: SearchMerge
    private let next = Atomic<Int>(0)
    private let matches = Atomic<Int>(0)
    private let filesScanned = Atomic<Int>(0)
    private let bytesScanned = Atomic<Int64>(0)
    /// The progress total: listed sizes, less binary and vanished files, corrected for files that changed.
    private let total: Protected<Int64>

    /// `threads`: the most threads to scan on (`--search-threads`); with 1, files are not split and
    /// the scan runs on the calling thread alone. `partBytes` and `bytesPerThread`: smaller in tests,
    /// to split small files and use threads on a small corpus.
    init(
        context: JobContext, matcher: LineMatcher, files: [SearchFile], threads: Int = 1, bufferSize: Int = SearchScan.chunkSize,
        partBytes: Int64 = SearchPart.partBytes, bytesPerThread: Int64 = SearchScan.bytesPerThread
    ) {
        self.context = context
        self.matcher = matcher
        self.files = files
        self.bufferSize = max(1, bufferSize)
        self.cap = max(0, context.environment.maxSearchResults)
        let listed = files.reduce(Int64(0)) { $0 + $1.size }
        let useful = max(1, min(threads, Int(min(Int64(Int.max), listed / max(1, bytesPerThread)))))
        self.parts = SearchPart.plan(files, threads: useful, partBytes: partBytes)
        self.threads = max(1, min(useful, parts.count))
        self.merge = SearchMerge(parts: parts, files: files, cap: cap, context: context)
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

    /// Scans every part on `threads` stripes and returns when all of them ended (all parts done, or
    /// cancelled). Thread: the job's worker thread, which runs one stripe itself.
    func scanAll() {
        guard threads > 1 else { return scanStripe() }
        let ended = DispatchGroup()
        for _ in 1..<threads {
            ended.enter()
            // Threads of the search's own rather than `concurrentPerform`, whose pool runs no more
            // than a thread per core: `--search-threads` is what the user asked for.
            Thread.detachNewThread { [self] in
                scanStripe()
                ended.leave()
            }
        }
        scanStripe()
        ended.wait()
    }

    /// One thread's share: parts from the shared index until none are left or the job is cancelled.
    /// Thread: a stripe's thread.
    func scanStripe() {
        let buffer = ScanBuffer(capacity: bufferSize)
        let folders = SearchFolderCache()
        while !context.isCancelled {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < parts.count else { return }
            scan(index, buffer, folders)
            merge.emit()
        }
    }

    /// Streams full or old batches of matches in order. Thread: any.
    func flushIfDue() { merge.emit() }

    /// Streams whatever the merge holds in order: after a cancel, the matches of the parts that
    /// finished before the first one that did not. Thread: the worker thread, after every stripe ended.
    func flush() { merge.emit(force: true) }

    /// Reads one part chunk by chunk, each chunk cut at its last newline so lines stay whole (the
    /// buffer grows for a line longer than a chunk). A file's first part starts with a small read
    /// for the binary test, so a binary file costs 8 KiB; a later part reads those 8 KiB again to
    /// decide the same, then skips the line that began before its range. Lines are counted only
    /// where a match needs them (`LineMatcher.scan`): not before a part's first match (that one
    /// reads the part again up to its chunk to count them), every chunk after it; and every chunk of
    /// a part whose count the next part of the file needs (`SearchPart.countsEveryLine`). Thread: a
    /// stripe's thread.
    private func scan(_ index: Int, _ buffer: ScanBuffer, _ folders: SearchFolderCache) {
        let part = parts[index]
        let file = files[part.file]
        var found: [FoundLine] = []
        var count = 0
        var line: Int? = 1  // The number (from the part's first line) of the line the next chunk starts with.
        defer { merge.finish(index, lines: found, found: count, newlines: (line ?? 1) - 1) }
        // O_NOFOLLOW: a file swapped for a symlink since the listing is not followed either.
        let descriptor = folders.open(file)
        guard descriptor >= 0 else { return adjustTotal(-part.listedBytes) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return adjustTotal(-part.listedBytes) }
        let sniff = min(Self.sniffSize, buffer.capacity)
        var got = Self.readFully(descriptor, buffer.base, sniff, at: 0)
        if memchr(buffer.base, 0, got) != nil { return adjustTotal(-part.listedBytes) }  // Binary.
        var carry = 0  // Bytes of an unfinished line kept at the start of the buffer.
        var position = Int64(got)  // Where the next read starts.
        if part.start > 0 {
            guard let first = Self.firstLineStart(after: part.start, descriptor, buffer, carry: &carry), first < (part.end ?? .max) else {
                return adjustTotal(-part.listedBytes)
            }
            position = first + Int64(carry)
            got = 0
        }
        let firstOwned = position - Int64(carry) - Int64(got)  // Where the part's first line starts.
        var offset = firstOwned  // Where in the file the next chunk starts (its carried bytes included).
        // The last chunk start whose line number is known: the part's first match counts from there.
        var mark = (offset: firstOwned, line: 1)
        var atEnd = part.start == 0 && got < sniff
        var owned: Int64 = 0
        while true {
            if carry == buffer.capacity { buffer.grow() }
            if !atEnd {
                let wanted = buffer.capacity - carry - got
                let more = Self.readFully(descriptor, buffer.base + carry + got, wanted, at: position)
                position += Int64(more)
                got += more
                atEnd = more < wanted
            }
            let filled = carry + got
            var end = atEnd ? filled : Self.lineEnd(buffer.base, filled)
            var last = atEnd
            if let partEnd = part.end, offset + Int64(end) >= partEnd {
                // The part's last line is the one holding the byte before its end.
                let from = Int(partEnd - 1 - offset)
                if let newline = memchr(buffer.base + from, 0x0A, end - from) {
                    end = UnsafeMutableRawPointer(newline) - UnsafeMutableRawPointer(buffer.base) + 1
                }
                last = true
            }
            if end > 0 {
                let text = UnsafeRawBufferPointer(start: buffer.base, count: end)
                let known = line
                line = matcher.scan(
                    text, firstLine: known ?? mark.line - 1 + Self.lineNumber(at: offset, from: mark.offset, in: descriptor, buffer)
                ) {
                    text, number in
                    count += 1
                    if count <= cap { found.append(FoundLine(line: number, text: Self.excerpt(text))) }
                }
                // Counted while the chunk is in the core's cache: in a part whose count the next part
                // needs, and after a part's first match, where a later match would otherwise read
                // the file again from the last known line (which cost 1.5 times the reads of a 12 MB
                // file with a match every 1.5 MB).
                if line == nil, part.countsEveryLine || count > 0, let known { line = known + LineMatcher.countNewlines(buffer.base, end) }
            }
            offset += Int64(end)
            if let line { mark = (offset, line) }
            owned += Int64(end)
            context.progress.add(Int64(end))
            carry = filled - end
            got = 0
            if carry > 0 { memmove(buffer.base, buffer.base + end, carry) }
            // After every chunk: the head part's matches must not wait for the part's end.
            merge.offer(index, &found)
            merge.emit()
            if last || context.isCancelled { break }
        }
        buffer.shrink()
        matches.wrappingAdd(count, ordering: .relaxed)
        if part.start == 0 { filesScanned.wrappingAdd(1, ordering: .relaxed) }
        bytesScanned.wrappingAdd(owned, ordering: .relaxed)
        if owned != part.listedBytes { adjustTotal(owned - part.listedBytes) }
    }

    /// Where the first line starting at or after `start` begins: after the first newline from
    /// `start - 1` on. The bytes read after that newline are left at the buffer's start (`carry`).
    /// Nil when no line starts there (the file ends first). Thread: a stripe's thread.
    private static func firstLineStart(after start: Int64, _ descriptor: Int32, _ buffer: ScanBuffer, carry: inout Int) -> Int64? {
        var position = start - 1
        while true {
            let got = readFully(descriptor, buffer.base, buffer.capacity, at: position)
            guard got > 0 else { return nil }
            if let newline = memchr(buffer.base, 0x0A, got) {
                let after = UnsafeMutableRawPointer(newline) - UnsafeMutableRawPointer(buffer.base) + 1
                carry = got - after
                if carry > 0 { memmove(buffer.base, buffer.base + after, carry) }
                return position + Int64(after)
            }
            position += Int64(got)
        }
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

    /// The number of the line that starts at `offset`, counted from the line at `start`: one more
    /// than the newlines between them, read again from the file into the buffer's spare space (from the page cache: the scan read these
    /// bytes moments ago). Asked only by a match in a chunk after one that was not counted. A file
    /// that changed since its first read gives the count of what it holds now. Thread: a stripe's
    /// thread.
    static func lineNumber(at offset: Int64, from start: Int64, in descriptor: Int32, _ buffer: ScanBuffer) -> Int {
        var line = 1
        var done = start
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

    /// Reads from `offset` until `wanted` bytes or the end of the file; a read error ends the file
    /// early. Thread: any.
    private static func readFully(_ descriptor: Int32, _ target: UnsafeMutablePointer<UInt8>, _ wanted: Int, at offset: Int64) -> Int {
        var done = 0
        while done < wanted {
            let got = pread(descriptor, target + done, wanted - done, off_t(offset + Int64(done)))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            done += got
        }
        return done
    }
}
