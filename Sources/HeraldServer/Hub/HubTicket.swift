/// Who an engine answer is for, and what to do with it.
public enum HubTicket: Sendable, Equatable {
    /// A snapshot for every connection waiting for one (connect, resync); `generation` tells
    /// whether it was asked for after the inbox last overflowed.
    case snapshot(generation: Int)
    /// The answer to a connection's resume (URL or command).
    case resume(ConnectionID, since: Int64)
    /// A command's answer: `accepted` for `start` and `cancel`, `schedules` and `schedule` for
    /// theirs, or `error`.
    case command(ConnectionID, type: String, requestId: String?)
    /// A `page` command's answer.
    case page(ConnectionID, job: String, requestId: String?)
    /// An HTTP exchange waiting for the engine.
    case http(ConnectionID, HTTPQuery)
    /// The engine's health, asked once a sweep (`StreamHub+Health`).
    case health

    /// Snapshots and resumes must be in step with the events around them.
    var isOrdered: Bool {
        switch self {
        case .snapshot, .resume: return true
        case .command, .page, .http, .health: return false
        }
    }
}
