import Foundation

/// What jobs may touch outside themselves: where to search, where to keep data, the news source.
/// Immutable after start-up (the sort cache guards itself), so any thread may read it.
public struct JobEnvironment: Sendable {
    /// The folder `search` looks in, resolved (symlinks and `..` removed).
    public let searchRoot: URL
    /// The data directory (`--data-dir`): history and sort data live here.
    public let dataDirectory: URL
    /// The simulated news server that `fetch` asks.
    public let newsSource: NewsSource
    /// The most search matches kept and streamed; the count goes on past it.
    public let maxSearchResults: Int
    /// The largest `count` a `sort` accepts.
    public let maxSortCount: Int
    /// The sort data in `dataDirectory` and its bound (`--sort-cache-bytes`). Shared by every copy
    /// of this environment; thread-safe.
    public let sortCache: SortCache

    public init(
        searchRoot: URL, dataDirectory: URL, newsSource: NewsSource,
        maxSearchResults: Int = 1000, maxSortCount: Int = 50_000_000, sortCacheBytes: Int = SortCache.defaultLimitBytes
    ) {
        self.searchRoot = searchRoot.standardizedFileURL.resolvingSymlinksInPath()
        self.dataDirectory = dataDirectory.standardizedFileURL
        self.newsSource = newsSource
        self.maxSearchResults = maxSearchResults
        self.maxSortCount = maxSortCount
        self.sortCache = SortCache(directory: self.dataDirectory, limitBytes: sortCacheBytes)
    }
}
