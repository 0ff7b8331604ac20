import Foundation

/// The sort data in the data directory (`numbers-<count>.bin`, `sorted-<count>.bin`), kept within
/// `--sort-cache-bytes`: each file is one count's and is reused by the next sort (or page) of that
/// count, so without a bound there would be two files for every count ever asked for. Past the
/// bound the least recently used files go (`SortCachePolicy`); a file in use (a sort reading or
/// writing it, a page being read from it) stays, so while the files in use alone weigh more than
/// the bound, the total does too. A page of a sort whose file went answers `gone` ("run the
/// sort again"), as it does for a file removed by hand.
///
/// The directory is listed once, by `load` (at server start) or at the first use, so files of
/// earlier runs count and go in the order they were last written.
///
/// Threads: any. `state` guards the policy and is held while files are removed, so a file is never
/// removed once someone began to use it; `published` holds a copy of the figures, updated while
/// `state` is held, so `/metrics` reads them without waiting for a removal. Lock order: `state`,
/// then `published`.
public final class SortCache: Sendable {
    /// 1 GiB: a few sorts of the largest count (50 million values: 200 MB a file).
    public static let defaultLimitBytes = 1 << 30

    /// The data directory.
    public let directory: URL
    /// The policy and whether the directory was listed. Thread: any; held while files are removed.
    private let state: Protected<State>
    /// The figures as of the last change. Thread: any; written only while `state` is held.
    private let published: Protected<SortCacheFigures>

    private struct State {
        var policy: SortCachePolicy
        var loaded = false
    }

    /// `limitBytes` 0: no bound. Touches no file: the directory is listed by `load` or the first use.
    public init(directory: URL, limitBytes: Int = SortCache.defaultLimitBytes) {
        self.directory = directory
        state = Protected(State(policy: SortCachePolicy(limitBytes: limitBytes)))
        published = Protected(SortCacheFigures(limitBytes: max(0, limitBytes)))
    }

    /// The file names of one count's data.
    static func numbersName(count: Int) -> String { "numbers-\(count).bin" }
    static func sortedName(count: Int) -> String { "sorted-\(count).bin" }

    /// The figures now. Thread: any; takes a lock held only to copy them.
    public var figures: SortCacheFigures { published.withLock { $0 } }

    /// Lists the directory (once) and removes what is past the bound. Thread: any; reads the disk.
    public func load() {
        change { _ in }
    }

    /// `names` are in use from now until `endUse`: none of them is removed meanwhile.
    func beginUse(_ names: [String]) {
        change { policy in for name in names { policy.beginUse(name) } }
    }

    /// `names` are no longer in use by this user; they count as used now. Removes what is past the
    /// bound (files that were kept while in use may go now).
    func endUse(_ names: [String]) {
        change { policy in for name in names { policy.endUse(name) } }
    }

    /// `body` runs with `name` in use. Thread: any.
    func using<Value, Failure: Error>(_ name: String, _ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        beginUse([name])
        defer { endUse([name]) }
        return try body()
    }

    /// `name` was (re)written with `bytes`; removes what is past the bound.
    func stored(_ name: String, bytes: Int) {
        change { policy in policy.stored(name, bytes: bytes) }
    }

    /// `name` was found missing: it no longer counts, unless a sort wrote it again since (looked
    /// for under the lock, which a sort's `stored` takes too).
    func missing(_ name: String) {
        let path = directory.appendingPathComponent(name).path
        change { policy in
            if !FileManager.default.fileExists(atPath: path) { policy.forget(name) }
        }
    }

    /// Applies `update`, removes the files the policy gives up, and publishes the figures, all under
    /// `state`; the first call lists the directory first.
    private func change(_ update: (inout SortCachePolicy) -> Void) {
        state.withLock { state in
            if !state.loaded {
                state.loaded = true
                for (name, bytes) in Self.list(directory) { state.policy.stored(name, bytes: bytes) }
            }
            update(&state.policy)
            for name in state.policy.evict() {
                // A file that cannot be removed is no longer counted either: the bound is on what
                // Herald keeps, and it will not try again and again.
                unlink(directory.appendingPathComponent(name).path)
            }
            let policy = state.policy
            published.withLock {
                $0 = SortCacheFigures(
                    bytes: policy.totalBytes, files: policy.fileCount, evictions: policy.evictions, limitBytes: policy.limitBytes)
            }
        }
    }

    /// The sort files in `directory` with their sizes, oldest written first.
    private static func list(_ directory: URL) -> [(String, Int)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var found: [(name: String, bytes: Int, written: Date)] = []
        for name in names where isSortFile(name) {
            let path = directory.appendingPathComponent(name).path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular, let bytes = (attributes[.size] as? NSNumber)?.intValue
            else { continue }
            found.append((name, bytes, attributes[.modificationDate] as? Date ?? .distantPast))
        }
        return found.sorted { $0.written != $1.written ? $0.written < $1.written : $0.name < $1.name }.map { ($0.name, $0.bytes) }
    }

    /// `numbers-<count>.bin` or `sorted-<count>.bin`, the count in plain decimal.
    static func isSortFile(_ name: String) -> Bool {
        for prefix in ["numbers-", "sorted-"] where name.hasPrefix(prefix) && name.hasSuffix(".bin") {
            let count = name.dropFirst(prefix.count).dropLast(4)
            return !count.isEmpty && count.first != "0" && count.allSatisfy { $0.isASCII && $0.isNumber }
        }
        return false
    }
}
