/// Connection ids unique across the server's service threads, which say which thread owns each: an
/// answer the engine addresses to a connection (a reply, a resume, a worker's directive) goes to that
/// thread's inbox. Thread `t` of `threads` numbers its connections `serial * threads + t`, so with one
/// thread an id is its serial, as it always was. A value; any thread.
public struct ConnectionRouting: Sendable, Equatable {
    public let threads: Int

    public init(threads: Int) {
        precondition(threads >= 1, "at least one service thread")
        self.threads = threads
    }

    /// The id of thread `thread`'s `serial`th connection (serials start at 1).
    public func id(serial: Int, thread: Int) -> ConnectionID {
        precondition(thread >= 0 && thread < threads && serial >= 1, "no such thread or serial")
        return serial * threads + thread
    }

    /// The thread that owns connection `id`.
    public func thread(of id: ConnectionID) -> Int { id % threads }

    /// The thread a delivery must reach: the owner of the connection it is addressed to, or nil for
    /// what every thread needs (events) or the dispatcher's side shares out (snapshots).
    public func thread(for delivery: Delivery) -> Int? { delivery.addressee.map(thread(of:)) }
}

extension Delivery {
    /// The one connection this delivery is for, if it is for one.
    public var addressee: ConnectionID? {
        switch self {
        case .event: return nil
        case .file(let id, _), .worker(let id, _): return id
        case .answer(let ticket, _): return ticket.addressee
        }
    }
}

extension HubTicket {
    /// The connection (or HTTP exchange) the answer is for; nil for what concerns every connection.
    public var addressee: ConnectionID? {
        switch self {
        case .snapshot, .health: return nil
        case .resume(let id, _), .command(let id, _, _), .page(let id, _, _), .http(let id, _): return id
        }
    }
}
