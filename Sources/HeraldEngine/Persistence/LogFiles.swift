import Foundation

/// Ended command jobs' kept logs, one JSON-lines file each (`logs/<job>.jsonl` in the data folder),
/// written atomically so a crash never leaves half a file. Threads: any; files of different jobs
/// never share a path, and one job's file is written by one writer at a time (the dispatcher
/// orders them).
struct LogFiles: Sendable {
    let folder: URL

    func url(_ id: JobID) -> URL { folder.appendingPathComponent("\(id.rawValue).jsonl") }

    func write(_ id: JobID, _ lines: [LogLine]) {
        var bytes: [UInt8] = []
        for line in lines.suffix(10_000) {
            bytes += JSONWriter.encode(line.json)
            bytes.append(UInt8(ascii: "\n"))
        }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? AtomicFile.write(Data(bytes), to: url(id))
    }

    /// The lines of a job's file; none when it has no file (a job that wrote nothing, or forgotten).
    func read(_ id: JobID) -> [LogLine] {
        guard let data = FileManager.default.contents(atPath: url(id).path) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { line in
            guard let value = try? JSONParser.parse(Array(line), maxDepth: 4), let text = value["text"]?.stringValue,
                let stream = value["stream"]?.stringValue.flatMap(LogLine.Stream.init(rawValue:))
            else { return nil }
            return LogLine(stream: stream, text: text)
        }
    }

    func remove(_ ids: Set<JobID>) {
        for id in ids { try? FileManager.default.removeItem(at: url(id)) }
    }
}
