import HeraldEngine

/// Where the engine's deliveries enter a server with several service threads: events are framed
/// once into the `SharedFrameRing` every thread reads (the poster is the ring's one writer, under
/// `writerLock`), then each thread is told the ring moved on; snapshots and resumes are stamped with
/// the ring's end index at the moment they are posted, which orders them with the events exactly
/// (the engine posts an answer after the events it covers, on the same queue); answers go to the
/// thread that asked, or to the owner of the connection they name (`ConnectionRouting`).
///
/// Threads: every method on any thread (the dispatcher queue, the cluster's view queue, page readers,
/// the sign-in queue). `writerLock` serialises the ring's writer; it is held while a batch is framed
/// and appended, and no service thread ever takes it (they take views from the ring's own mutex).
public final class StreamFanOut: Sendable {
    public let ring: SharedFrameRing
    public let inboxes: [ThreadInbox]
    public let routing: ConnectionRouting
    /// The server's connection limit and metrics, shared by the threads' hubs.
    public let connections: ConnectionBudget
    public let metrics: MetricsBoard
    private let writerLock = Protected(())

    public init(threads: Int, ringBytes: Int, maxConnections: Int = ServerConfiguration().maxConnections) {
        routing = ConnectionRouting(threads: threads)
        ring = SharedFrameRing(capacityBytes: ringBytes)
        inboxes = (0..<threads).map { _ in ThreadInbox() }
        connections = ConnectionBudget(limit: maxConnections)
        metrics = MetricsBoard(threads: threads)
    }

    /// What thread `thread`'s hub shares with the others.
    public func sharing(thread: Int) -> HubSharing {
        HubSharing(ring: ring, thread: thread, connections: connections, metrics: metrics)
    }

    /// Frames a batch of events once, publishes it, and tells every thread. Thread: any.
    public func post(events: [SequencedEvent]) {
        guard !events.isEmpty else { return }
        writerLock.withLock { _ in
            for event in events {
                var record: JobRecord?
                if case .job(let job) = event.event { record = job }
                ring.append(WebSocketFrame.text(event.json), seq: event.seq, ts: event.ts, job: event.job, record: record)
            }
            ring.publish()
        }
        for inbox in inboxes { inbox.ringAdvanced() }
    }

    /// Posts an answer: to `thread` (the thread whose hub asked) when given, else to the owner of the
    /// connection it names. Snapshots and resumes are stamped with the ring's end index. An answer
    /// that names no connection and no thread has nowhere to go and is dropped. Thread: any.
    public func post(_ delivery: Delivery, thread: Int? = nil) {
        if case .event(let event) = delivery { return post(events: [event]) }
        guard let target = thread ?? routing.thread(for: delivery) else { return }
        let inbox = inboxes[target]
        if delivery.isOrdered {
            let index = writerLock.withLock { _ in ring.endIndex }
            inbox.post(ordered: delivery, at: index)
        } else {
            inbox.post(reply: delivery)
        }
    }

    /// The engine's stream restarted: the ring forgets the old epoch's frames and every thread resyncs
    /// its viewers. Thread: any.
    public func resetStream() {
        writerLock.withLock { _ in
            ring.discardAll()
            ring.publish()
        }
        for inbox in inboxes { inbox.resetStream() }
    }

    /// Asks every service thread to close its clients and stop. Thread: any.
    public func requestStop() { for inbox in inboxes { inbox.requestStop() } }

    /// Events published that the slowest thread has not taken a view of: the benchmark ticker's
    /// pacing, over all threads. Thread: any.
    public var undeliveredEvents: Int {
        let end = ring.view.endIndex
        return Int(end - (inboxes.map(\.taken).min() ?? end))
    }

    /// Whether more than a tenth of all threads' stream connections hold a backlog (as
    /// `DeliveryInbox.deliveryIsBehind`, summed over threads). Thread: any.
    public var deliveryIsBehind: Bool {
        let counts = inboxes.map(\.backlog)
        let backlogged = counts.reduce(0) { $0 + $1.backlogged }
        return backlogged > 0 && backlogged * 10 > counts.reduce(0) { $0 + $1.total }
    }
}
