import Foundation

/// `schedules.json` in the data folder: for each schedule, the latest occurrence handled and whether
/// it is paused, so a restart neither fires an occurrence twice nor forgets a pause. Written whole
/// and atomically (`AtomicFile`). Thread: any; one writer at a time (the scheduler's file queue).
struct ScheduleFile: Sendable {
    struct Entry: Equatable, Sendable {
        var lastOccurrence: Int64
        var paused: Bool
    }

    let url: URL

    /// What the file holds; empty when there is none or it cannot be read (reported by `problem`).
    func load() -> (entries: [String: Entry], problem: String?) {
        guard let data = FileManager.default.contents(atPath: url.path) else { return ([:], nil) }
        guard let value = try? JSONParser.parse([UInt8](data), maxDepth: 8), let schedules = value["schedules"]?.objectValue else {
            return ([:], "schedules: \(url.path) cannot be read; every schedule starts afresh (no catch-up)")
        }
        var entries: [String: Entry] = [:]
        for name in schedules.keys {
            guard let entry = schedules[name], let last = entry["lastOccurrence"]?.intValue else { continue }
            entries[name] = Entry(lastOccurrence: last, paused: entry["paused"]?.boolValue ?? false)
        }
        return (entries, nil)
    }

    func save(_ entries: [String: Entry]) throws {
        var schedules: JSONObject = [:]
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            schedules[name] = .object(["lastOccurrence": .int(entry.lastOccurrence), "paused": .bool(entry.paused)])
        }
        var bytes = JSONWriter.encode(["version": .int(1), "schedules": .object(schedules)])
        bytes.append(UInt8(ascii: "\n"))
        try AtomicFile.write(Data(bytes), to: url)
    }
}
