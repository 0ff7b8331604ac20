/// What a job does. `ticker` exists only for benchmarks and is refused unless the server enables it.
public enum JobKind: String, Sendable, CaseIterable, Hashable {
    case search
    case sort
    case fetch
    case ticker
}
