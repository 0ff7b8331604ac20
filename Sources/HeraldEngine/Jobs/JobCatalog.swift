/// The job kinds a server offers. The benchmark-only `ticker` lives in `HeraldBench`; the
/// dispatcher refuses it unless `EngineConfiguration.enableTicker` is set.
public enum JobCatalog {
    /// `searchThreads`: the most threads one search scans on (`--search-threads`).
    public static func standardRunners(searchThreads: Int = SearchRunner.defaultThreads) -> [any JobRunner] {
        [SearchRunner(threads: searchThreads), SortRunner(), FetchRunner()]
    }
}
