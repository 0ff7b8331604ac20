/// The job kinds a server offers. `ticker` is included; the dispatcher refuses it unless
/// `EngineConfiguration.enableTicker` is set.
public enum JobCatalog {
    public static func standardRunners() -> [any JobRunner] {
        [SearchRunner(), SortRunner(), FetchRunner(), TickerRunner()]
    }
}
