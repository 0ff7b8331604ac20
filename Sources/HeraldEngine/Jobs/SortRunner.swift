import Foundation

/// `sort`: generates `count` random numbers once and keeps them, loads them, sorts them ascending,
/// and keeps the sorted values on disk so pages are served with pread, never from memory.
///
/// Params: `count` (integer, 1...environment.maxSortCount, default 10000).
/// Files in the data directory: `numbers-<count>.bin` (the input, reused by later sorts of the same
/// count; regenerated when truncated or corrupted) and `sorted-<count>.bin` (see `NumbersFile`),
/// both within the sort cache's bound (`SortCache`): a run holds both in use, a page the sorted one.
/// Progress: one bar of 4 × count units: loading (2 slices; when the file must be made instead:
/// generating, writing), sorting, saving. Summary: `{"count", "min", "max", "created"}`, where
/// `created` says this job (re)wrote the input file.
public struct SortRunner: JobRunner {
    public let kind = JobKind.sort
    /// Called at the start of each phase on the worker thread, with the phase name: a test seam to
    /// act at an exact point (cancel in the middle of a write).
    let phaseHook: (@Sendable (JobContext, String) -> Void)?

    public init() { phaseHook = nil }

    init(phaseHook: @escaping @Sendable (JobContext, String) -> Void) { self.phaseHook = phaseHook }

    static func numbersURL(_ environment: JobEnvironment, count: Int) -> URL {
        environment.dataDirectory.appendingPathComponent(SortCache.numbersName(count: count))
    }

    static func sortedURL(_ environment: JobEnvironment, count: Int) -> URL {
        environment.dataDirectory.appendingPathComponent(SortCache.sortedName(count: count))
    }

    /// Thread: the dispatcher queue.
    public func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject {
        try JobParams.refuseUnknown(params, allowed: ["count"])
        let limit = max(1, environment.maxSortCount)
        return ["count": .int(Int64(try JobParams.integer(params, "count", default: min(10_000, limit), in: 1...limit)))]
    }

    /// Thread: the job's worker thread. Peak memory is the data twice (values and the radix scratch).
    public func run(_ context: JobContext) throws -> JSONObject {
        let count = Int(context.params["count"]?.intValue ?? 10_000)
        var bar = PhaseBar(context, unit: count, slices: 4, hook: phaseHook)
        let source = Self.numbersURL(context.environment, count: count)
        let target = Self.sortedURL(context.environment, count: count)
        let cache = context.environment.sortCache
        let inUse = [source.lastPathComponent, target.lastPathComponent]
        cache.beginUse(inUse)
        defer { cache.endUse(inUse) }
        let fileBytes = NumbersFile.headerSize + 4 * count

        bar.begin("loading", start: 0, span: 2)
        var values: [UInt32]
        var created = false
        if case .values(let loaded) = try NumbersFile.load(source, count: count, chunkDone: { try bar.advance($0, of: count) }) {
            values = loaded
            // Counted even when the file came from somewhere the cache did not see.
            cache.stored(source.lastPathComponent, bytes: fileBytes)
        } else {
            // Missing, truncated or corrupted: make a new file. The old one stays until the rename.
            values = try generate(count, &bar)
            try save(values, to: source, phase: "writing", start: 1, &bar)
            cache.stored(source.lastPathComponent, bytes: fileBytes)
            created = true
        }

        bar.begin("sorting", start: 2)
        try RadixSort.sort(&values) { try bar.advance($0, of: RadixSort.passes * count) }
        let summary: JSONObject = [
            "count": .int(Int64(count)), "min": .int(Int64(values.first ?? 0)), "max": .int(Int64(values.last ?? 0)),
            "created": .bool(created),
        ]
        try save(values, to: target, phase: "saving", start: 3, &bar)
        cache.stored(target.lastPathComponent, bytes: fileBytes)
        return summary
    }

    /// Uniform in 0..<1e9. SplitMix64 seeded once from the system: the system generator per value
    /// would cost a syscall each, far too slow for 50 million.
    private func generate(_ count: Int, _ bar: inout PhaseBar) throws -> [UInt32] {
        bar.begin("generating", start: 0)
        var generator = SeededGenerator(seed: UInt64.random(in: 1...UInt64.max))
        return try [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            while initialized < count {
                let end = min(count, initialized + NumbersFile.chunkValues)
                for index in initialized..<end {
                    buffer[index] = UInt32(truncatingIfNeeded: generator.next().multipliedFullWidth(by: 1_000_000_000).high)
                }
                initialized = end
                try bar.advance(initialized, of: count)
            }
        }
    }

    /// Writes atomically; a cancel in the middle removes the temporary file and keeps the old one.
    private func save(_ values: [UInt32], to url: URL, phase: String, start: Int, _ bar: inout PhaseBar) throws {
        try NumbersFile.write(values, to: url) { written in
            if written == 0 { bar.begin(phase, start: start) }
            try bar.advance(written, of: values.count)
        }
    }

    /// A page of the sorted values, read from `sorted-<count>.bin`, which is in use meanwhile and
    /// counts as used. A file found missing no longer counts in the cache. Thread: any.
    public func page(of job: JobRecord, offset: Int, limit: Int, environment: JobEnvironment) throws(EngineError) -> ResultPage? {
        guard job.state == .succeeded else {
            throw EngineError(.notFound, "sort \(job.id) has no sorted values: it is \(job.state.rawValue), not succeeded")
        }
        guard offset >= 0 else { throw .badRequest(field: "offset", "must be 0 or more") }
        guard limit >= 1 else { throw .badRequest(field: "limit", "must be 1 or more") }
        guard let count = job.params["count"]?.intValue, count >= 1 else {
            throw .badRequest(field: "count", "sort \(job.id) has no valid count")
        }
        let url = Self.sortedURL(environment, count: Int(count))
        let values: [UInt32]
        do {
            values = try environment.sortCache.using(url.lastPathComponent) { () throws(EngineError) in
                try NumbersFile.page(url, count: Int(count), offset: offset, limit: limit)
            }
        } catch {
            if error.code == .gone { environment.sortCache.missing(url.lastPathComponent) }
            throw error
        }
        return ResultPage(offset: offset, total: Int(count), values: values.map { .int(Int64($0)) })
    }
}
