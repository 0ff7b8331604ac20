import Dispatch
import Foundation
import HeraldSupport

/// Fires the jobs file's schedules (docs/schedules.md): at each occurrence's time (and at least once
/// a second) it asks each schedule's standing which occurrences are due by the wall clock, writes the new standing to
/// `schedules.json` first (so a restart never fires an occurrence twice), then starts their jobs
/// as the schedule's `overlap` says. It follows the jobs it started through the event stream, to
/// know when one ends (`overlap`) and how. On a cluster, each occurrence is claimed first
/// (`ClusterHooks.occurrenceClaim`), so one node fires it.
///
/// Thread: everything runs on the dispatcher queue but `init` (any thread, before use) and the file
/// writes (`files`).
final class Scheduler: @unchecked Sendable {
    // @unchecked Sendable: the state is confined to the dispatcher queue; Sendable so that the timer
    // and the stream's subscription, which run on that queue, may hold it.
    private let jobs: JobLifecycle
    private let names: [String]
    private var standings: [String: ScheduleStanding] = [:]
    private let file: ScheduleFile
    /// Writes `schedules.json`, in order, off the dispatcher queue.
    private let files = DispatchQueue(label: "herald.schedules", qos: .utility)
    private var timer: (any ScheduledTimer)?

    /// The longest wait between two looks for due occurrences (seconds of the dispatcher's clock).
    static let tick = 1.0

    init(_ declarations: [ScheduleDeclaration], jobs: JobLifecycle, log: @escaping @Sendable (String) -> Void) {
        self.jobs = jobs
        self.names = declarations.map(\.name)
        self.file = ScheduleFile(url: jobs.setup.environment.dataDirectory.appendingPathComponent("schedules.json"))
        let (saved, problem) = declarations.isEmpty ? ([:], nil) : file.load()
        if let problem { log(problem) }
        let now = jobs.wallMillis / 1000
        for declaration in declarations {
            let entry = saved[declaration.name]
            // A new schedule has missed nothing: it fires from its first occurrence after now.
            standings[declaration.name] = ScheduleStanding(
                declaration: declaration, paused: entry?.paused ?? declaration.paused, lastOccurrence: entry?.lastOccurrence ?? now)
        }
    }

    /// Starts the ticks (catching up what was missed while the server was down). Thread: the queue.
    func start() {
        guard !names.isEmpty, timer == nil else { return }
        jobs.stream.subscribe(JobDispatcher.newSubscriberID()) { [weak self] batch in self?.observe(batch) }
        tick()
        arm()
    }

    /// Wakes at the next occurrence due (jitter included), or within `tick` seconds whatever the
    /// schedules say, so a wall clock that steps is noticed soon.
    private func arm() {
        let nowMillis = jobs.wallMillis
        let nextDue = standings.values.compactMap { standing -> Int64? in
            guard !standing.paused, let next = standing.declaration.schedule.next(after: standing.lastOccurrence) else { return nil }
            return (next + standing.jitter(of: next)) * 1000
        }.min()
        let delay = min(Self.tick, max(0.001, Double((nextDue ?? Int64.max / 2) - nowMillis) / 1000 + 0.001))
        timer = jobs.clock.schedule(on: jobs.queue, after: delay, repeating: nil) { [weak self] in
            guard let self, timer != nil else { return }
            tick()
            arm()
        }
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }

    // MARK: Requests

    func statuses() -> [ScheduleStatus] { names.compactMap(status) }

    func control(_ name: String, _ action: ScheduleAction) -> Result<ScheduleStatus, EngineError> {
        guard var standing = standings[name] else {
            let known = names.isEmpty ? "the jobs file declares none" : "known: \(names.joined(separator: ", "))"
            return .failure(EngineError(.notFound, "no schedule \"\(name)\"; \(known)"))
        }
        switch action {
        case .pause:
            standing.paused = true
        case .resume:
            // What came due while paused is not caught up.
            if standing.paused { standing.lastOccurrence = max(standing.lastOccurrence, jobs.wallMillis / 1000) }
            standing.paused = false
        case .run:
            if let refusal = launch(name, occurrence: nil) { return .failure(refusal) }
            standing = standings[name] ?? standing
        }
        standings[name] = standing
        save { _ in }
        return status(name).map { .success($0) } ?? .failure(EngineError(.notFound, "no schedule \"\(name)\""))
    }

    private func status(_ name: String) -> ScheduleStatus? {
        guard let standing = standings[name] else { return nil }
        let next =
            standing.paused ? nil : standing.declaration.schedule.next(after: max(standing.lastOccurrence, jobs.wallMillis / 1000))
        return ScheduleStatus(
            declaration: standing.declaration, paused: standing.paused, next: next.map { $0 * 1000 }, last: standing.last,
            fired: standing.fired, skipped: standing.skipped, missed: standing.missed, lateness: standing.lateness)
    }

    // MARK: Firing

    private func tick() {
        guard !jobs.isShuttingDown else { return }
        let now = jobs.wallMillis / 1000
        var due: [(name: String, occurrence: Int64)] = []
        var changed = false
        for name in names {
            guard var standing = standings[name] else { continue }
            let before = standing.lastOccurrence
            let (occurrences, _) = standing.due(now: now)
            standings[name] = standing
            changed = changed || standing.lastOccurrence != before
            due += occurrences.map { (name, $0) }
        }
        guard changed else { return }
        // The new standing is on disk before any job starts: a restart never fires these again.
        save { [self] _ in
            for (name, occurrence) in due { claimThenHandle(name, occurrence) }
        }
    }

    /// Handles an occurrence once this node may (a cluster: it won the occurrence's claim).
    private func claimThenHandle(_ name: String, _ occurrence: Int64) {
        guard let claim = jobs.cluster.occurrenceClaim else { return handle(name, occurrence) }
        let queue = jobs.queue
        claim(name, occurrence) { [weak self] won in
            guard won, let self else { return }
            queue.async { self.handle(name, occurrence) }
        }
    }

    private func handle(_ name: String, _ occurrence: Int64) {
        guard var standing = standings[name], !jobs.isShuttingDown else { return }
        let at = occurrence * 1000
        switch standing.step() {
        case .start:
            _ = launch(name, occurrence: occurrence)
            return
        case .replace(let running):
            _ = jobs.cancelOnQueue(running.rawValue)
            _ = launch(name, occurrence: occurrence)
            return
        case .skip:
            standing.skipped += 1
            standing.last = ScheduleStatus.Last(at: at, job: nil, outcome: "skipped")
        case .wait:
            standing.queued.append(occurrence)
            standing.last = ScheduleStatus.Last(at: at, job: nil, outcome: "queued")
        }
        standings[name] = standing
    }

    /// Starts the schedule's job; nil, or why it was refused. `occurrence`: nil for "run now".
    private func launch(_ name: String, occurrence: Int64?) -> EngineError? {
        guard var standing = standings[name] else { return nil }
        let declaration = standing.declaration
        var request = StartRequest(kind: declaration.kind.rawValue, params: declaration.params)
        request.schedule = name
        let now = jobs.wallMillis
        defer { standings[name] = standing }
        switch jobs.startOnQueue(request) {
        case .success(let record):
            standing.fired += 1
            standing.running = record.state.isTerminal ? nil : record.id
            standing.last = ScheduleStatus.Last(at: occurrence.map { $0 * 1000 } ?? now, job: record.id, outcome: record.state.rawValue)
            if let occurrence { standing.lateness = max(0, Double(now - occurrence * 1000) / 1000) }
            return nil
        case .failure(let refusal):
            standing.last = ScheduleStatus.Last(at: occurrence.map { $0 * 1000 } ?? now, job: nil, outcome: "refused: \(refusal.message)")
            return refusal
        }
    }

    /// Follows the jobs schedules started: a job that ended frees its schedule (the next queued
    /// occurrence starts) and is the schedule's last outcome.
    private func observe(_ batch: [SequencedEvent]) {
        for event in batch {
            guard case .job(let record) = event.event, let name = record.schedule, var standing = standings[name] else { continue }
            if standing.last?.job == record.id { standing.last?.outcome = record.state.rawValue }
            if record.state.isTerminal, standing.running == record.id {
                standing.running = nil
                standings[name] = standing
                if !standing.queued.isEmpty {
                    let next = standing.queued.removeFirst()
                    standings[name] = standing
                    _ = launch(name, occurrence: next)
                }
                continue
            }
            standings[name] = standing
        }
    }

    /// Writes every standing to `schedules.json` off the queue, then runs `then` on the queue.
    private func save(then: @escaping (Bool) -> Void) {
        let entries = standings.mapValues { ScheduleFile.Entry(lastOccurrence: $0.lastOccurrence, paused: $0.paused) }
        let (file, health, queue) = (file, jobs.archive.health, jobs.queue)
        nonisolated(unsafe) let then = then
        files.async {
            let saved: Bool
            do {
                try file.save(entries)
                health.succeeded("schedules")
                saved = true
            } catch {
                // Fired anyway: a lost occurrence is worse than one a crash now could fire again.
                health.failed("schedules", path: file.url.path, "\(error)")
                saved = false
            }
            queue.async { then(saved) }
        }
    }
}
