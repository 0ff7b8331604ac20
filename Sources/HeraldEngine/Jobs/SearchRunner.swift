import Dispatch
import Foundation

/// `search`: finds the lines containing a query in the files under the search root.
///
/// Params: `query` (string, 1–1024 UTF-8 bytes, one line), `caseSensitive` (bool, default false;
/// ignoring case folds ASCII letters only, see `LineMatcher`), `path` (optional folder relative to
/// the root; normalised to its real relative path, omitted for the root itself).
/// Results: batches of `{"file", "line", "text"}` in file order (the listing's: names sorted by
/// bytes, folder by folder), then line order, at most `environment.maxSearchResults` items: the first
/// ones in that order, whatever the number of threads.
/// Summary: `{"matches": all matching lines, even past the cap, "files": text files scanned,
/// "bytes": bytes scanned, "capped": whether matches went past the cap}`.
/// Skipped: hidden names, the data directory, symlinks, non-regular files, and binary files (a NUL
/// in the first 8 KiB). Progress: bytes, with the total set once the files are listed.
public struct SearchRunner: JobRunner {
    public let kind = JobKind.search
    static let maxQueryBytes = 1024
    /// The most threads one search scans on (`--search-threads`).
    public static let maxThreads = 64
    /// The default's bound: scanning is mostly the kernel's copy from the page cache, which stops
    /// gaining from more threads long before a large machine runs out of cores.
    public static let defaultThreadCap = 16
    /// The active processor count, at most `defaultThreadCap`.
    public static var defaultThreads: Int { max(1, min(defaultThreadCap, ProcessInfo.processInfo.activeProcessorCount)) }

    /// The most threads one search scans on; 1 scans on the job's worker thread alone.
    public let threads: Int

    public init(threads: Int = SearchRunner.defaultThreads) {
        self.threads = max(1, min(Self.maxThreads, threads))
    }

    /// Thread: the dispatcher queue (it stats the `path` folder: a few syscalls).
    public func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject {
        try JobParams.refuseUnknown(params, allowed: ["query", "caseSensitive", "path"])
        guard let query = params["query"]?.stringValue else { throw .badRequest(field: "query", "is required and must be a string") }
        guard (1...Self.maxQueryBytes).contains(query.utf8.count) else {
            throw .badRequest(field: "query", "must be 1 to \(Self.maxQueryBytes) bytes of UTF-8")
        }
        // Matches are whole lines, so a query spanning a line break could never match.
        guard !query.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else {
            throw .badRequest(field: "query", "must be a single line")
        }
        var normalised: JSONObject = [
            "query": .string(query), "caseSensitive": .bool(try JobParams.bool(params, "caseSensitive", default: false)),
        ]
        var relative: String?
        if let raw = params["path"], raw != .null {
            guard let text = raw.stringValue else { throw .badRequest(field: "path", "must be a string") }
            relative = text
        }
        let folder = try SearchPath.resolve(relative, environment: environment).relativeFolder
        if !folder.isEmpty { normalised["path"] = .string(folder) }
        return normalised
    }

    /// Thread: the job's worker thread lists the files, then scans on up to `threads` threads, itself
    /// one of them (`SearchScan.scanAll`); after they ended it streams the rest.
    public func run(_ context: JobContext) throws -> JSONObject {
        guard let query = context.params["query"]?.stringValue, !query.isEmpty else { throw JobFailure("query: is missing") }
        let caseSensitive = context.params["caseSensitive"]?.boolValue ?? false
        // Again, not trusting validate's answer: the folders may have changed while the job queued.
        let place: SearchPath
        do { place = try SearchPath.resolve(context.params["path"]?.stringValue, environment: context.environment) } catch {
            throw JobFailure(error.message)
        }
        let dataDirectory = SearchPath.real(context.environment.dataDirectory.path)
        let excluded = dataDirectory.flatMap { SearchPath.isInside($0, place.root) ? $0 : nil }
        let files = try SearchTree.list(place, excluding: excluded, context: context)
        try context.checkCancelled()

        let scan = SearchScan(
            context: context, matcher: LineMatcher(query: query, caseSensitive: caseSensitive), files: files, threads: threads)
        scan.scanAll()
        // Matches found before a cancel are still streamed (those in order: up to the first part that
        // did not finish): they are true, and clients may keep them.
        scan.flush()
        try context.checkCancelled()
        return scan.summary
    }
}
