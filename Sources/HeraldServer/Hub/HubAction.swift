import HeraldEngine

/// What the hub asks its transport to do. The transport performs each at once, in order.
public enum HubAction: Sendable {
    /// Call back with `StreamHub.writable` when the connection's socket takes more.
    case wantWritable(ConnectionID)
    /// Call back with `StreamHub.writable` for every WebSocket connection: one request in place of one
    /// per connection, when a delivery finds (nearly) all of them waiting to be asked. Harmless for
    /// the rest: `writable` answers `.idle` for a connection with nothing to write.
    case wantWritableAll
    /// Close the connection at once, without a closing handshake: its peer went silent (keepalive), so
    /// it may never read a close frame, nor make its socket writable again.
    case drop(ConnectionID)
    /// Send this request to the engine; post its reply to the inbox as `.answer(ticket, reply)`.
    case ask(EngineRequest, HubTicket)
    /// Answer an HTTP exchange.
    case respond(ConnectionID, HTTPResponse)
    /// Read a dashboard file off the service thread; post the response as `.file(id, response)`, with
    /// `Access-Control-Allow-Origin: allowOrigin` when it is set (`/client.js` for an allowed origin).
    case readFile(ConnectionID, path: String, allowOrigin: String?)
    /// Run `work` off the service thread, one at a time (a sign-in's password check); post what it
    /// answers as `.file(id, response)`.
    case compute(ConnectionID, @Sendable () -> HTTPResponse)
    /// Start `work` off the service thread; it answers by itself (a read from Redis), once, on any
    /// thread: post what it answers as `.file(id, response)`.
    case answerLater(ConnectionID, @Sendable (_ answer: @escaping @Sendable (HTTPResponse) -> Void) -> Void)
    /// A worker said `hello`: attach it to the engine; post its directives as `.worker(id, …)`.
    case attachWorker(ConnectionID, WorkerHello)
    /// Pass an attached worker's message to the engine.
    case workerReport(ConnectionID, WorkerReport)
    /// An attached worker's connection closed.
    case detachWorker(ConnectionID)
}
