/// What a job does: a name. The built-in kinds have names here; a jobs file (`JobsFile`) or a Swift
/// program that registers its own `JobRunner` adds any other. `ticker` exists only for benchmarks
/// and is refused unless the server enables it.
public struct JobKind: RawRepresentable, Hashable, Sendable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ name: String) { self.rawValue = name }
    public init(stringLiteral name: String) { self.rawValue = name }

    public static let search: JobKind = "search"
    public static let sort: JobKind = "sort"
    public static let fetch: JobKind = "fetch"
    public static let ticker: JobKind = "ticker"

    /// The kinds compiled into Herald, in the order snapshots list them; a jobs file may not reuse them.
    public static let builtIn: [JobKind] = [.search, .sort, .fetch, .ticker]

    public var description: String { rawValue }

    public static func < (lhs: JobKind, rhs: JobKind) -> Bool { lhs.rawValue < rhs.rawValue }
}
