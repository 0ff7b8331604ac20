/// The job kinds a server offers. The benchmark-only `ticker` lives in `HeraldBench`; the
/// dispatcher refuses it unless `EngineConfiguration.enableTicker` is set.
public enum JobCatalog {
    public static func standardRunners() -> [any JobRunner] {
        [SearchRunner(), SortRunner(), FetchRunner()]
    }
}
