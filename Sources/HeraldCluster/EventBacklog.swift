import HeraldEngine

/// The events a node's publisher has yet to append, oldest first, with the bytes of their
/// encodings: a queue whose head moves on without moving what is behind it (the publisher takes a
/// batch of up to 512 off the front while up to 200,000 wait, many times a second), and the bound's
/// shedding (`shed`). A value, guarded by whoever holds it (`ClusterPublisher`'s `condition`).
struct EventBacklog {
    private var events: [SequencedEvent] = []
    /// Where the waiting events begin in `events`; what is before it is gone.
    private var head = 0
    /// The bytes of the waiting events' encodings.
    private(set) var bytes = 0

    var count: Int { events.count - head }
    var isEmpty: Bool { head == events.count }

    /// The waiting events, oldest first.
    var waiting: ArraySlice<SequencedEvent> { events[head...] }

    mutating func append(contentsOf new: [SequencedEvent]) {
        events.append(contentsOf: new)
        bytes += new.reduce(0) { $0 + $1.json.count }
    }

    /// The first `count` events (fewer if fewer wait).
    func prefix(_ count: Int) -> [SequencedEvent] { Array(waiting.prefix(count)) }

    /// Drops the first `count` events. What is behind them moves only when the gone part is at
    /// least as long as the rest (each event is moved at most about once).
    mutating func removeFirst(_ count: Int) {
        let count = min(count, self.count)
        bytes -= events[head..<head + count].reduce(0) { $0 + $1.json.count }
        head += count
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= events.count {
            events.removeSubrange(..<head)
            head = 0
        }
    }

    /// Drops the oldest events `rule` allows, after the first `spared` (in flight), while more than
    /// `maxCount` events or `maxBytes` bytes wait. Returns how many went.
    mutating func shed(sparingFirst spared: Int, downTo maxCount: Int, bytes maxBytes: Int, where rule: (SequencedEvent) -> Bool) -> Int {
        let from = head + min(spared, count)
        var remaining = count
        var remainingBytes = bytes
        let kept = events[from...].filter { event in
            guard remaining > maxCount || remainingBytes > maxBytes, rule(event) else { return true }
            remaining -= 1
            remainingBytes -= event.json.count
            return false
        }
        let dropped = events.count - from - kept.count
        events.replaceSubrange(from..., with: kept)
        bytes = remainingBytes
        return dropped
    }
}
