/// A slice of a job's results: `values` start at `offset`, out of `total`. For a command job the
/// slice is of its kept log (`isLog`), each value a line `{"stream","text"}`.
public struct ResultPage: Sendable, Equatable {
    public let offset: Int
    public let total: Int
    public let values: [JSONValue]
    public let isLog: Bool

    public init(offset: Int, total: Int, values: [JSONValue], isLog: Bool = false) {
        self.offset = offset
        self.total = total
        self.values = values
        self.isLog = isLog
    }
}
