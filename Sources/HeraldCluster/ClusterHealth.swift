import Foundation
import HeraldSupport
import HeraldEngine

/// Whether this node can reach Redis, as each of its three connections last found it. Any one
/// failing makes the node `degraded`: viewers stay connected, `/healthz` answers 503 with the
/// reason, starts and cancels are refused with `unavailable` until every connection works again.
///
/// It is also how the connections come back together: when one that had failed works again (Redis
/// answers), the others' reconnect pauses end (`pause`) and `whenAnswered`'s handler is told, so no
/// connection waits out the rest of its backoff while Redis is already there.
///
/// Threads: any (the publisher and tail threads and the command queue write; anyone reads); every
/// property is guarded by `condition`.
final class ClusterHealth: @unchecked Sendable {
    // @unchecked Sendable: `failures`, `answers` and `answered` are only touched while `condition` is held.
    enum Link: String, Sendable, CaseIterable {
        case publisher, tail, commands
    }

    private let condition = MonotonicCondition()
    private var failures: [Link: String] = [:]
    /// How many times a failed link worked again: a pause ends when it moves.
    private var answers = 0
    private var answered: @Sendable (Link) -> Void = { _ in }

    /// `handler` is told, on the thread of the link that found it, each time a failed link works
    /// again. Set once, before the links are used.
    func whenAnswered(_ handler: @escaping @Sendable (Link) -> Void) {
        condition.lock()
        answered = handler
        condition.unlock()
    }

    /// `link` works (again).
    func ok(_ link: Link) {
        condition.lock()
        let recovered = failures.removeValue(forKey: link) != nil
        if recovered {
            answers += 1
            condition.broadcast()
        }
        let handler = answered
        condition.unlock()
        if recovered { handler(link) }
    }

    /// `link` failed: `reason` is what a person reads in `/healthz` and in refusals.
    func failed(_ link: Link, _ reason: String) {
        condition.lock()
        failures[link] = reason
        condition.unlock()
    }

    /// Whether `link` worked last time it was used (or was not used yet).
    func isWorking(_ link: Link) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return failures[link] == nil
    }

    /// Why the node is degraded, or nil when it is not.
    var degradedReason: String? {
        condition.lock()
        let now = failures
        condition.unlock()
        return Link.allCases.compactMap { link in now[link].map { "redis \(link.rawValue): \($0)" } }.first
    }

    /// How many times a failed link worked again so far (for `pause`).
    var answerCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return answers
    }

    /// Waits `seconds`, or less once `answerCount` is no longer `seen` (a link worked again: Redis
    /// answers). Returns `answerCount` then. Thread: a link's owner, never the command queue.
    func pause(_ seconds: Double, unlessAnsweredAfter seen: Int) -> Int {
        let deadline = MonotonicCondition.deadline(after: seconds)
        condition.lock()
        defer { condition.unlock() }
        while answers == seen, condition.wait(until: deadline) {}
        return answers
    }

    /// Waits until every link works, at most `seconds`; whether they do. Thread: the tail's.
    @discardableResult
    func awaitEveryLink(within seconds: Double) -> Bool {
        let deadline = MonotonicCondition.deadline(after: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !failures.isEmpty, condition.wait(until: deadline) {}
        return failures.isEmpty
    }
}
