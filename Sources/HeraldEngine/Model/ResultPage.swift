/// A slice of a job's results: `values` start at `offset`, out of `total`. For a command job the
/// slice is of its kept log (`isLog`), each value a line `{"stream","text"}`.
public struct ResultPage: Sendable, Equatable {
    public let offset: Int
    public let total: Int
    public let values: [JSONValue]
    public let isLog: Bool
    /// For a log: which line of the whole output `offset` 0 is (lines before it were dropped).
    public let first: Int

    public init(offset: Int, total: Int, values: [JSONValue], isLog: Bool = false, first: Int = 0) {
        self.offset = offset
        self.total = total
        self.values = values
        self.isLog = isLog
        self.first = first
    }
}
