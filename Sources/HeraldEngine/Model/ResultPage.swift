/// A slice of a job's results: `values` start at `offset`, out of `total`.
public struct ResultPage: Sendable, Equatable {
    public let offset: Int
    public let total: Int
    public let values: [JSONValue]

    public init(offset: Int, total: Int, values: [JSONValue]) {
        self.offset = offset
        self.total = total
        self.values = values
    }
}
