/// One attached worker connection, as the engine knows it: an opaque number the server picks (its
/// connection id), unique while the connection lives. A worker that reconnects is a new session.
public struct WorkerSession: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: Int

    public init(_ rawValue: Int) {
        self.rawValue = rawValue
    }

    public static func < (lhs: WorkerSession, rhs: WorkerSession) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "worker session \(rawValue)" }
}
