import HeraldEngine

/// What reaches the service thread through the `DeliveryInbox`: the engine's events, the engine's
/// answers to the hub's requests, and files read off the service thread. A value; crosses threads.
public enum Delivery: Sendable {
    /// A numbered event, in `seq` order.
    case event(SequencedEvent)
    /// The engine's answer to a request the hub sent with this ticket.
    case answer(HubTicket, EngineReply)
    /// A static file read for an HTTP exchange (or the 404 that stands for it).
    case file(ConnectionID, HTTPResponse)

    /// Events and the answers that must stay in step with them (snapshots, resumes) travel in
    /// order; everything else overtakes them, so a reply never waits behind a burst of events.
    var isOrdered: Bool {
        switch self {
        case .event: return true
        case .answer(let ticket, _): return ticket.isOrdered
        case .file: return false
        }
    }
}

/// A connection (WebSocket or HTTP exchange) as the hub knows it: a number, never a pointer.
public typealias ConnectionID = Int

/// Who an engine answer is for, and what to do with it.
public enum HubTicket: Sendable, Equatable {
    /// A snapshot for every connection waiting for one (connect, resync); `generation` tells
    /// whether it was asked for after the inbox last overflowed.
    case snapshot(generation: Int)
    /// The answer to a connection's resume (URL or command).
    case resume(ConnectionID, since: Int64)
    /// A `start` or `cancel` command's answer (`accepted` or `error`).
    case command(ConnectionID, type: String, requestId: String?)
    /// A `page` command's answer.
    case page(ConnectionID, job: String, requestId: String?)
    /// An HTTP exchange waiting for the engine.
    case http(ConnectionID, HTTPQuery)

    /// Snapshots and resumes must be in step with the events around them.
    var isOrdered: Bool {
        switch self {
        case .snapshot, .resume: return true
        case .command, .page, .http: return false
        }
    }
}
