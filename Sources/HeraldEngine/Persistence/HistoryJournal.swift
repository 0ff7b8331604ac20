/// The lines of `jobs.jsonl`, as plain functions (no I/O): a job object at every state change (the
/// last line for an id wins), and `{"forgotten":[ids]}` when jobs leave memory for the archive.
enum HistoryJournal {
    /// What a journal's bytes hold.
    struct Contents: Equatable {
        /// The jobs still in memory when it was written, in the order they first appeared.
        var records: [JobRecord] = []
        /// Whole lines that are neither a job nor a `forgotten` line.
        var unreadable = 0
        /// The length of a last line cut short (no `\n`, not readable): what a crash in the middle
        /// of an append leaves. Dropped, not counted as unreadable.
        var tornTail: Int?
    }

    /// `{"forgotten":["j-…",…]}` and its newline.
    static func forgottenLine(_ ids: [JobID]) -> [UInt8] {
        var line = JSONWriter.encode(["forgotten": .array(ids.map { .string($0.rawValue) })])
        line.append(UInt8(ascii: "\n"))
        return line
    }

    static func read(_ bytes: [UInt8]) -> Contents {
        var contents = Contents()
        var latest: [JobID: JobRecord] = [:]
        var order: [JobID] = []
        let newline = UInt8(ascii: "\n")
        let lines = bytes.split(separator: newline, omittingEmptySubsequences: true)
        for (index, line) in lines.enumerated() {
            let isUnfinishedLast = index == lines.count - 1 && bytes.last != newline
            guard let value = try? JSONParser.parse(Array(line), maxDepth: 64) else {
                if isUnfinishedLast { contents.tornTail = line.count } else { contents.unreadable += 1 }
                continue
            }
            if let record = JobRecord(json: value) {
                if latest[record.id] == nil { order.append(record.id) }
                latest[record.id] = record
            } else if let ids = value["forgotten"]?.arrayValue {
                for id in ids.compactMap(\.stringValue) { latest.removeValue(forKey: JobID(id)) }
            } else if isUnfinishedLast {
                contents.tornTail = line.count
            } else {
                contents.unreadable += 1
            }
        }
        contents.records = order.compactMap { latest[$0] }
        return contents
    }
}
