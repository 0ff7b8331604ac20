import Foundation

/// Reading the archive for history pages. Thread: any (a reader never writes a segment; the only
/// shared state is `Summaries`, behind its lock).
extension HistoryArchive {
    /// The archive as of one moment on `io`: closed segments, and the current one's whole length
    /// then (lines appended later are of jobs the memory part of the same page already covers).
    struct View: Sendable {
        let folder: URL
        let closed: [Int]
        let current: Int
        let currentBytes: Int
        let currentKeys: ClosedRange<HistoryCursor>?
        /// Lines not written yet (a full disk), oldest first: newer than every segment's.
        let waiting: [[UInt8]]

        /// The segments, newest first; the current one (0: none is open) is read up to `currentBytes`.
        var segmentsNewestFirst: [Int] { (closed + (current > 0 ? [current] : [])).reversed() }
    }

    /// A segment's oldest and newest keys; nil for an empty one.
    struct Summary: Sendable {
        let keys: ClosedRange<HistoryCursor>?
    }

    /// Closed segments' summaries, learnt when a segment is closed or first read, so a page skips
    /// segments that cannot hold any of its jobs. Thread: any; guarded by its lock.
    final class Summaries: Sendable {
        private let known = Protected<[Int: Summary]>([:])
        func summary(_ number: Int) -> Summary? { known.withLock { $0[number] } }
        func store(_ number: Int, _ summary: Summary) { known.withLock { $0[number] = summary } }
        func remove(_ number: Int) { _ = known.withLock { $0.removeValue(forKey: number) } }
    }

    /// The jobs in a segment's bytes (whole lines), their key range, and how many lines were unreadable.
    static func records(in bytes: ArraySlice<UInt8>) -> (records: [JobRecord], keys: ClosedRange<HistoryCursor>?, unreadable: Int) {
        var records: [JobRecord] = []
        var keys: ClosedRange<HistoryCursor>?
        var unreadable = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let value = try? JSONParser.parse(Array(line), maxDepth: 64), let record = JobRecord(json: value) else {
                unreadable += 1
                continue
            }
            let key = HistoryCursor(record)
            keys = keys.map { min($0.lowerBound, key)...max($0.upperBound, key) } ?? key...key
            records.append(record)
        }
        return (records, keys, unreadable)
    }

    /// Offers the archive's jobs to `picker`, newest segments first, skipping every segment whose
    /// key range cannot reach the page. A segment deleted meanwhile (rotation) counts as empty.
    static func read(_ view: View, into picker: inout HistoryPicker, summaries: Summaries, report: (String) -> Void) {
        for line in view.waiting.reversed() {
            if let value = try? JSONParser.parse(Array(line.dropLast()), maxDepth: 64), let record = JobRecord(json: value) {
                picker.offer(record)
            }
        }
        for number in view.segmentsNewestFirst {
            let isCurrent = number == view.current
            if let summary = isCurrent ? Summary(keys: view.currentKeys) : summaries.summary(number) {
                guard let keys = summary.keys, !picker.canSkip(keys) else { continue }
            }
            let url = view.folder.appendingPathComponent(name(number))
            guard let handle = try? FileHandle(forReadingFrom: url) else { continue }
            let data = (try? (isCurrent ? handle.read(upToCount: view.currentBytes) : handle.readToEnd())) ?? nil
            try? handle.close()
            let bytes = [UInt8](data ?? Data())
            let contents = records(in: bytes[...])
            for record in contents.records { picker.offer(record) }
            if !isCurrent, summaries.summary(number) == nil {
                summaries.store(number, Summary(keys: contents.keys))
                if contents.unreadable > 0 { report("history: \(contents.unreadable) unreadable line(s) in \(name(number)) are skipped") }
            }
        }
    }

    /// The archived record of one job, or nil: newest segments first, each searched for the job's
    /// id as it is written (`"id":"…"`) before any line is parsed, so a look-up parses one line.
    static func find(_ id: JobID, in view: View) -> JobRecord? {
        let needle = Array("\"id\":\"\(id.rawValue)\"".utf8)
        for line in view.waiting.reversed() where firstRange(of: needle, in: line, from: line.startIndex) != nil {
            if let value = try? JSONParser.parse(Array(line.dropLast()), maxDepth: 64), let record = JobRecord(json: value),
                record.id == id
            {
                return record
            }
        }
        for number in view.segmentsNewestFirst {
            let isCurrent = number == view.current
            let url = view.folder.appendingPathComponent(name(number))
            guard let handle = try? FileHandle(forReadingFrom: url) else { continue }
            let data = (try? (isCurrent ? handle.read(upToCount: view.currentBytes) : handle.readToEnd())) ?? nil
            try? handle.close()
            let bytes = [UInt8](data ?? Data())
            var from = bytes.startIndex
            while let hit = firstRange(of: needle, in: bytes, from: from) {
                let start = bytes[..<hit].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.startIndex
                let end = bytes[hit...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
                if let value = try? JSONParser.parse(Array(bytes[start..<end]), maxDepth: 64), let record = JobRecord(json: value),
                    record.id == id
                {
                    return record
                }
                from = hit + 1
            }
        }
        return nil
    }

    /// Where `needle` first occurs in `bytes` at or after `from`.
    private static func firstRange(of needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, bytes.count - from >= needle.count else { return nil }
        var index = from
        while index <= bytes.count - needle.count {
            guard let candidate = bytes[index...(bytes.count - needle.count)].firstIndex(of: first) else { return nil }
            if bytes[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
            index = candidate + 1
        }
        return nil
    }
}
