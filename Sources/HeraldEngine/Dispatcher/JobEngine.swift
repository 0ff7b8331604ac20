/// What a stream hub needs of an engine: messages both ways and never a wait. `JobDispatcher` is the
/// in-process engine; an engine behind a broker implements the same three calls.
///
/// Ordering: every `reply` and every subscriber call of one engine runs on one serial context (the
/// dispatcher queue), except `.page`, `.history` and `.metrics` replies, and `.job` replies about a
/// job found in the history archive, which read files or the allocator's figures elsewhere. So a snapshot or resume
/// reply handed to the same queue as the events is in step with them: the events that follow it in
/// that queue are exactly those after its `seq`.
public protocol JobEngine: AnyObject, Sendable {
    /// The stream's epoch: differs on every start, so a client knows a resume cannot work.
    var epoch: String { get }
    /// Answers `request` by calling `reply` once, later, on the engine's serial context (see above).
    /// Thread: any. Never blocks.
    func send(_ request: EngineRequest, reply: @escaping @Sendable (EngineReply) -> Void)
    /// Calls `handler` with every event from now on, in `seq` order, a batch at a time (so what
    /// crosses threads is paid per batch, not per event), on the engine's serial context. Requests
    /// sent after `subscribe` returns are answered after the subscription took effect, and a reply to
    /// a request comes after every event emitted before it was answered.
    /// Thread: any. Never blocks.
    func subscribe(_ handler: @escaping @Sendable ([SequencedEvent]) -> Void) -> Int
    /// Stops calling the handler. Thread: any. Never blocks.
    func unsubscribe(_ id: Int)

    /// A worker said `hello` on a connection: the engine answers through `directives` (`accepted`
    /// or an `error`, later `assign`, `cancel`, refusals of reports, `drop`), on its serial context,
    /// until `detachWorker`. Thread: any. Never blocks.
    func attachWorker(_ session: WorkerSession, _ hello: WorkerHello, directives: @escaping @Sendable (WorkerDirective) -> Void)
    /// A message from an attached worker. Thread: any. Never blocks.
    func workerSent(_ session: WorkerSession, _ report: WorkerReport)
    /// The worker's connection closed: the attempts it held are lost. Thread: any. Never blocks.
    func detachWorker(_ session: WorkerSession)

    /// See the extension below (a default that does nothing).
    func onStreamReset(_ handler: @escaping @Sendable () -> Void)
    /// See the extension below (a default that does nothing).
    func close()
}

extension JobEngine {
    /// Calls `handler` when the engine's stream restarts under a new epoch (or skipped events), so
    /// that events already delivered lead nowhere: every viewer needs a fresh snapshot. Events the
    /// engine hands subscribers after calling it are of the new stream. A single process's
    /// dispatcher never restarts its stream; a cluster node does when Redis lost its data.
    /// Thread: any. Never blocks.
    public func onStreamReset(_ handler: @escaping @Sendable () -> Void) {}

    /// The server stopped and this node's jobs ended: an engine with threads of its own (a cluster
    /// node's Redis readers and writers) stops them. Thread: any but the engine's own.
    public func close() {}
}
