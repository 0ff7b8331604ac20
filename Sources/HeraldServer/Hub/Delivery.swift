import HeraldEngine

/// What reaches the service thread through the `DeliveryInbox`: the engine's events, the engine's
/// answers to the hub's requests, and files read off the service thread. A value; crosses threads.
public enum Delivery: Sendable {
    /// A numbered event, in `seq` order.
    case event(SequencedEvent)
    /// The engine's answer to a request the hub sent with this ticket. This case and the next two
    /// are boxed (`indirect`): a reply can hold a whole job record, a response its headers, and every
    /// delivery, each event too, would be as large as the largest (304 bytes; boxed, about 100).
    indirect case answer(HubTicket, EngineReply)
    /// A static file read for an HTTP exchange (or the 404 that stands for it).
    indirect case file(ConnectionID, HTTPResponse)
    /// Something the engine tells one attached worker.
    indirect case worker(ConnectionID, WorkerDirective)

    /// Events and the answers that must stay in step with them (snapshots, resumes) travel in
    /// order; everything else overtakes them, so a reply never waits behind a burst of events.
    var isOrdered: Bool {
        switch self {
        case .event: return true
        case .answer(let ticket, _): return ticket.isOrdered
        case .file, .worker: return false
        }
    }
}
