/// What a stream hub needs of an engine: messages both ways and never a wait. `JobDispatcher` is the
/// in-process engine; an engine behind a broker implements the same three calls.
///
/// Ordering: every `reply` and every subscriber call of one engine runs on one serial context (the
/// dispatcher queue), except `.page` and `.history` replies, which read files elsewhere. So a snapshot or resume
/// reply handed to the same queue as the events is in step with them: the events that follow it in
/// that queue are exactly those after its `seq`.
public protocol JobEngine: AnyObject, Sendable {
    /// The stream's epoch: differs on every start, so a client knows a resume cannot work.
    var epoch: String { get }
    /// Answers `request` by calling `reply` once, later, on the engine's serial context (see above).
    /// Thread: any. Never blocks.
    func send(_ request: EngineRequest, reply: @escaping @Sendable (EngineReply) -> Void)
    /// Calls `handler` with every event from now on, in `seq` order, on the engine's serial context.
    /// Requests sent after `subscribe` returns are answered after the subscription took effect.
    /// Thread: any. Never blocks.
    func subscribe(_ handler: @escaping @Sendable (SequencedEvent) -> Void) -> Int
    /// Stops calling the handler. Thread: any. Never blocks.
    func unsubscribe(_ id: Int)
}
