/// The dispatcher's one ordered stream: gives each event its number (`seq`), keeps the resume log,
/// and gathers events into batches for the subscribers. Events a request causes can be held back
/// until its reply went out (`hold`/`release`). A plain value owned by the dispatcher queue; the
/// handlers it returns are called by the dispatcher, outside any mutation of it.
struct EventStream {
    private(set) var seq: Int64 = 0
    /// The newest events, for resumes.
    private(set) var log: EventLog
    private var subscribers: [Int: @Sendable ([SequencedEvent]) -> Void] = [:]
    /// Events numbered but not yet handed to subscribers.
    private var outgoing: [SequencedEvent] = []
    /// Events numbered while a request is answered; nil when none is.
    private var held: [SequencedEvent]?

    init(log: EventLog) {
        self.log = log
    }

    /// Numbers `event`, logs it and queues it for the next batch (or holds it). Returns the event
    /// and whether it began a batch: then the caller schedules the hand-over (`takeBatch`).
    mutating func append(_ event: EngineEvent, ts: Int64) -> (event: SequencedEvent, beganBatch: Bool) {
        seq += 1
        let sequenced = SequencedEvent(seq: seq, ts: ts, event: event)
        log.append(sequenced)
        if held != nil {
            held?.append(sequenced)
            return (sequenced, false)
        }
        outgoing.append(sequenced)
        return (sequenced, outgoing.count == 1)
    }

    /// The events numbered so far, as one batch, with the handlers to hand it to; nil when none wait.
    mutating func takeBatch() -> (batch: [SequencedEvent], handlers: [@Sendable ([SequencedEvent]) -> Void])? {
        guard !outgoing.isEmpty else { return nil }
        let batch = outgoing
        outgoing.removeAll(keepingCapacity: true)
        return (batch, Array(subscribers.values))
    }

    /// From now on, events wait until `release`.
    mutating func hold() { held = [] }

    /// The held events join the next batch.
    mutating func release() {
        outgoing.append(contentsOf: held ?? [])
        held = nil
    }

    mutating func subscribe(_ id: Int, _ handler: @escaping @Sendable ([SequencedEvent]) -> Void) { subscribers[id] = handler }

    mutating func unsubscribe(_ id: Int) { subscribers.removeValue(forKey: id) }

    /// The events after `since`, or nil when the log no longer has them all.
    func events(after since: Int64) -> [EncodedEvent]? { log.events(after: since, currentSeq: seq) }
}
