import Foundation

/// Ended command jobs' kept logs, one JSON-lines file each (`logs/<job>.jsonl` in the data folder),
/// written atomically so a crash never leaves half a file. Threads: any; files of different jobs
/// never share a path, and one job's file is written by one writer at a time (the dispatcher
/// orders them).
struct LogFiles: Sendable {
    let folder: URL

    func url(_ id: JobID) -> URL { folder.appendingPathComponent("\(id.rawValue).jsonl") }

    /// The first line of a file says which line of the output the next one is: `{"first": N}`.
    /// Throws when the file cannot be written (a full disk); then no file is left for the job.
    func write(_ id: JobID, _ lines: [LogLine], first: Int) throws {
        var bytes = JSONWriter.encode(["first": .int(Int64(first))])
        bytes.append(UInt8(ascii: "\n"))
        for line in lines.suffix(10_000) {
            bytes += JSONWriter.encode(line.json)
            bytes.append(UInt8(ascii: "\n"))
        }
        try AtomicFile.write(Data(bytes), to: url(id))
    }

    /// The lines of a job's file and the number of the first; none when it has no file (a job that
    /// wrote nothing, or was forgotten).
    func read(_ id: JobID) -> (first: Int, lines: [LogLine]) {
        guard let data = FileManager.default.contents(atPath: url(id).path) else { return (0, []) }
        let rows = data.split(separator: UInt8(ascii: "\n"))
        let first = rows.first.flatMap { try? JSONParser.parse(Array($0), maxDepth: 4) }?["first"]?.intValue ?? 0
        let lines = rows.dropFirst().compactMap { line -> LogLine? in
            guard let value = try? JSONParser.parse(Array(line), maxDepth: 4), let text = value["text"]?.stringValue,
                let stream = value["stream"]?.stringValue.flatMap(LogLine.Stream.init(rawValue:))
            else { return nil }
            return LogLine(stream: stream, text: text)
        }
        return (Int(first), lines)
    }

    func remove(_ ids: Set<JobID>) {
        for id in ids { try? FileManager.default.removeItem(at: url(id)) }
    }
}
