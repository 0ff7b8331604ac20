import HeraldEngine

/// What the hub asks its transport to do. The transport performs each at once, in order.
public enum HubAction: Sendable {
    /// Call back with `StreamHub.writable` when the connection's socket takes more.
    case wantWritable(ConnectionID)
    /// New events for a connection that had written everything: write now, in this turn of the
    /// service loop, when the socket is the transport's alone to write (call `StreamHub.writable` at
    /// once); otherwise as `.wantWritable`. Fan-out to thousands of caught-up connections then costs
    /// one pass of writes, not a pass of writable requests, a poll and a pass of callbacks.
    case writeNow(ConnectionID)
    /// Close the connection at once, without a closing handshake: its peer went silent (keepalive), so
    /// it may never read a close frame, nor make its socket writable again.
    case drop(ConnectionID)
    /// Send this request to the engine; post its reply to the inbox as `.answer(ticket, reply)`.
    case ask(EngineRequest, HubTicket)
    /// Answer an HTTP exchange.
    case respond(ConnectionID, HTTPResponse)
    /// Read a dashboard file off the service thread; post the response as `.file(id, response)`.
    case readFile(ConnectionID, path: String)
    /// A worker said `hello`: attach it to the engine; post its directives as `.worker(id, …)`.
    case attachWorker(ConnectionID, WorkerHello)
    /// Pass an attached worker's message to the engine.
    case workerReport(ConnectionID, WorkerReport)
    /// An attached worker's connection closed.
    case detachWorker(ConnectionID)
}
