import Dispatch
import Synchronization

/// A matching line as a part found it: its number counted from the part's first line.
struct FoundLine: Sendable {
    let line: Int
    let text: String
}

/// The reorder buffer of a search: parts finish in any order on any thread, and their matches leave
/// in part order (file, then line), as soon as every part before them has finished, in batches.
///
/// The part in order next (the head) hands its matches over while it scans (`offer`), so a large
/// file streams as it is read; a part that finishes ahead of the head waits here (`finish`) until the
/// head reaches it. Only the first `cap` matches in order are kept, so once the waiting parts hold
/// more than `cap` lines, each is cut to `cap` less the matches known to come before it: the waiting
/// parts hold at most twice `cap` matches (plus a few words of counts per waiting part), the batch
/// at most `cap`, and each part still scanning at most `cap`.
///
/// Threads: `offer`, `finish` and `emit` run on the search's threads (any of them), the final
/// `emit(force:)` on the job's worker thread after they ended. `state` is behind its mutex;
/// `emitting` is held around taking a batch and streaming it, so batches leave in the order they
/// were taken, while parts keep depositing under `state` alone.
final class SearchMerge: Sendable {
    static let batchSize = 64
    static let batchNanoseconds: UInt64 = 100_000_000

    private struct Waiting {
        var lines: [FoundLine]
        /// Every match of the part, kept or not: what comes before the later parts.
        let found: Int
        let newlines: Int
    }

    private struct State {
        /// The part whose matches go out next.
        var head = 0
        /// The number of the head's first line in its file.
        var firstLine = 1
        var waiting: [Int: Waiting] = [:]
        /// The lines the waiting parts hold, in all.
        var waitingLines = 0
        /// Matches put in a batch so far, at most `cap`.
        var kept = 0
        var batch: [JSONValue] = []
        /// When the batch was last taken (or the search began).
        var since: UInt64
    }

    private let parts: [SearchPart]
    private let files: [SearchFile]
    private let cap: Int
    private let context: JobContext
    private let state: Protected<State>
    /// Counts the batches streamed (a value of its own rather than Void, whose inout accesses
    /// ThreadSanitizer reported as racing under the lock).
    private let emitting = Protected<Int>(0)
    /// Whether the batch holds anything: written under `state`'s lock, read without it by `emit`,
    /// which the stripes call after every chunk, so that a chunk with nothing to stream takes no
    /// lock. A stale `false` only delays a batch to the next chunk's call.
    private let hasBatch = Atomic<Bool>(false)

    init(parts: [SearchPart], files: [SearchFile], cap: Int, context: JobContext) {
        self.parts = parts
        self.files = files
        self.cap = max(0, cap)
        self.context = context
        state = Protected(State(since: DispatchTime.now().uptimeNanoseconds))
    }

    /// Takes `lines` into the batch when `part` is the head; else leaves them with the part.
    /// Thread: the part's thread, between chunks.
    func offer(_ part: Int, _ lines: inout [FoundLine]) {
        guard !lines.isEmpty else { return }
        state.withLock { state in
            guard state.head == part else { return }
            append(lines, of: part, to: &state)
            lines.removeAll(keepingCapacity: true)
        }
    }

    /// A part ended: `lines` are its matches not yet offered, `found` all its matches, `newlines`
    /// the newlines of the lines it owns (counted when `countsEveryLine`, else unused). Moves every
    /// finished part from the head on into the batch. Thread: the part's thread.
    func finish(_ part: Int, lines: [FoundLine], found: Int, newlines: Int) {
        state.withLock { state in
            state.waiting[part] = Waiting(lines: lines, found: found, newlines: newlines)
            state.waitingLines += lines.count
            while let done = state.waiting.removeValue(forKey: state.head) {
                state.waitingLines -= done.lines.count
                append(done.lines, of: state.head, to: &state)
                let next = state.head + 1
                let sameFile = next < parts.count && parts[next].file == parts[state.head].file
                state.firstLine = sameFile ? state.firstLine + done.newlines : 1
                state.head = next
            }
            if state.waitingLines > cap { trimWaiting(&state) }
        }
    }

    /// Streams full batches, and a batch older than the batch interval (or any, when `force`).
    /// Without `force`, returns at once when another thread is streaming: that one takes whatever is
    /// ready before it lets go, and what comes after goes with the next chunk's call, so a stream
    /// held up by slow subscribers holds up one search thread, not all of them. Thread: any; `force`
    /// on the job's worker thread once the search threads ended.
    func emit(force: Bool = false) {
        if force {
            emitting.withLock { $0 += emitReady(force: true) }
        } else if hasBatch.load(ordering: .relaxed) {
            emitting.withLockIfAvailable { $0 += emitReady(force: false) }
        }
    }

    /// Under `emitting`'s lock. Returns the number of batches streamed.
    private func emitReady(force: Bool) -> Int {
        var batches = 0
        while true {
            let ready: [JSONValue]? = state.withLock { state in
                guard !state.batch.isEmpty else { return nil }
                // The clock is read under the lock: a reading taken before it could be older than
                // `since`; adding rather than subtracting cannot underflow.
                let due = force || DispatchTime.now().uptimeNanoseconds >= state.since + Self.batchNanoseconds
                guard due || state.batch.count >= Self.batchSize else { return nil }
                let taken = Array(state.batch.prefix(Self.batchSize))
                state.batch.removeFirst(taken.count)
                if state.batch.isEmpty { hasBatch.store(false, ordering: .relaxed) }
                state.since = DispatchTime.now().uptimeNanoseconds
                return taken
            }
            guard let ready else { return batches }
            context.emitResults(ready)
            batches += 1
        }
    }

    /// Under `state`'s lock.
    private func append(_ lines: [FoundLine], of part: Int, to state: inout State) {
        let room = cap - state.kept
        guard room > 0, !lines.isEmpty else { return }
        let file = files[parts[part].file].relative
        for found in lines.prefix(room) {
            state.batch.append(["file": .string(file), "line": .int(Int64(state.firstLine + found.line - 1)), "text": .string(found.text)])
        }
        state.kept += min(room, lines.count)
        hasBatch.store(true, ordering: .relaxed)
    }

    /// Cuts each waiting part's list to what can still be kept after the matches known to come
    /// before it: then the waiting parts hold at most `cap` lines. Under `state`'s lock; a sorted
    /// walk over the waiting parts, so it runs only once they hold more than `cap` lines (never in
    /// a search whose matches stay under the cap), and leaves them at most `cap`.
    private func trimWaiting(_ state: inout State) {
        var before = state.kept
        var held = 0
        for part in state.waiting.keys.sorted() {
            let room = max(0, cap - before)
            state.waiting[part]!.lines = Array(state.waiting[part]!.lines.prefix(room))
            held += state.waiting[part]!.lines.count
            before += state.waiting[part]!.found
        }
        state.waitingLines = held
    }
}
