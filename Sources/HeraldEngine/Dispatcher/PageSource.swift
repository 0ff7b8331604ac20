/// Where a kind's result pages come from (a cluster node asks, to read them from any node).
public enum PageSource: Sendable, Equatable {
    /// The items its `results` events carried (search matches).
    case streamedResults
    /// Its kept log (a command job's output lines).
    case log
    /// Files on the node that ran it (sort's numbers): only that node can read them.
    case runningNode
}
