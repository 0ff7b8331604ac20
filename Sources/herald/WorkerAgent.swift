import Foundation
import HeraldEngine
import HeraldLWS

/// The worker loop of `herald work`: connects, says `hello`, runs what it is assigned (each an
/// `AssignedRun`), sends their reports and a `beat` every third of the lease, and reconnects with
/// capped exponential backoff when the connection drops; its runs go on meanwhile, and a run whose
/// attempt the server no longer counts as this worker's is killed when the server says `lease_lost`.
/// SIGINT/SIGTERM: `drain` (no new work), `grace` seconds for running jobs, then cancel them, send
/// their last reports, exit 0.
///
/// Thread: `run` and every member but `outgoing` and `interrupted` belong to the caller's thread;
/// runs append to `outgoing` from their own threads; the signal handler sets `interrupted`.
final class WorkerAgent {
    let url: WebSocketURL
    let token: String?
    let name: String
    let slots: Int
    let grace: Double
    let kinds: [String: CommandKind]
    private let context: ClientContext
    let interrupted = InterruptFlag()
    /// Reports waiting to be sent, in order. Appended by runs' threads; taken by `run`.
    private let outgoing = Protected<[WorkerReport]>([])
    /// Reports kept at most while the server is unreachable: progress and log beyond it are dropped
    /// (results and failures never are).
    static let maxQueuedReports = 10_000
    private var runs: [JobID: AssignedRun] = [:]
    private var lease = 30.0
    /// When SIGINT/SIGTERM was first seen: grace is counted from here.
    private var stoppingSince: ContinuousClock.Instant?
    private var cancelledAll = false
    /// Whether the last session's hello was accepted (then backoff starts again from its shortest).
    private var sessionWasAccepted = false
    /// Jobs whose late reports the server refused after their run had ended (said once each).
    private var refusedJobs: Set<String> = []

    init(url: WebSocketURL, caFile: String?, token: String?, name: String, slots: Int, grace: Double, kinds: [CommandKind]) throws {
        self.url = url
        self.token = token
        self.name = name
        self.slots = slots
        self.grace = grace
        self.kinds = Dictionary(kinds.map { ($0.name.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        context = try ClientContext(tls: url.isSecure ? caFile.map(ClientTLS.caFile) ?? .systemTrust : nil)
    }

    private enum SessionEnd {
        case lost(String)
        case refused(String)
        case finished
    }

    func run() -> Int32 {
        var delay = 0.5
        while true {
            let ending: SessionEnd
            do {
                let client = try WebSocketClient(url: url, context: context)
                try client.connect(timeout: 5)
                ending = session(client)
            } catch let failure as WebSocketClient.Failure where failure.kind == .tls {
                say("\(failure)")
                return 1
            } catch {
                ending = .lost("\(error)")
            }
            switch ending {
            case .finished:
                say("stopped")
                return 0
            case .refused(let why):
                say("the server refused this worker: \(why)")
                return 2
            case .lost(let why):
                if interrupted.isSet, runs.isEmpty, outgoing.withLock({ $0.isEmpty }) {
                    say("stopped (\(why))")
                    return 0
                }
                if let since = stoppingSince, ContinuousClock.now - since >= .milliseconds(Int((grace + 10) * 1000)) {
                    say("stopped without reaching the server (\(why)); the last reports of \(runs.count) job(s) were not delivered")
                    for run in runs.values { run.abandon() }
                    return 0
                }
                if sessionWasAccepted { delay = 0.5 }
                let wait = delay * Double.random(in: 0.8...1.2)
                say(String(format: "\(why); reconnecting in %.1f s", wait))
                let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
                while ContinuousClock.now < deadline, !(interrupted.isSet && runs.isEmpty && outgoing.withLock({ $0.isEmpty })) {
                    tend()
                    usleep(50_000)
                }
                if interrupted.isSet, runs.isEmpty, outgoing.withLock({ $0.isEmpty }) {
                    say("stopped")
                    return 0
                }
                delay = min(delay * 2, 8)
            }
        }
    }

    /// One connection: hello, then work until it drops, the server refuses us, or we are done.
    private func session(_ client: WebSocketClient) -> SessionEnd {
        var params: [String: JSONValue] = [:]
        for (name, kind) in kinds { params[name] = kind.json["params"] }
        let hello = WorkerHello(name: name, kinds: kinds.keys.sorted(), slots: slots, token: token, params: params)
        client.send(bytes: hello.json)
        var lastSent = ContinuousClock.now
        // Self-fencing (docs/workers.md): when the server answers beats, the send time of the last
        // beat it answered is when its lease on this worker's runs surely still ran; past half a lease
        // after that without an answer, the runs are stopped before the server gives them to another.
        var answersBeats = false
        var beatsUnanswered: [ContinuousClock.Instant] = []
        var renewedAt = lastSent
        var lastBeat = lastSent
        var accepted = false
        var drainSent = false
        sessionWasAccepted = false
        while true {
            tend()
            if accepted {
                let reports = outgoing.withLock { queued in
                    defer { queued.removeAll() }
                    return queued
                }
                for report in reports { client.send(bytes: report.json) }
                if !reports.isEmpty { lastSent = .now }
                if answersBeats, ContinuousClock.now - lastBeat >= .milliseconds(Int(lease * 1000 / 4)) {
                    // Whatever else was sent: only an answered beat shows the lease renewed.
                    client.send(bytes: WorkerReport.beat.json)
                    (lastSent, lastBeat) = (.now, .now)
                    beatsUnanswered.append(lastBeat)
                } else if !answersBeats, ContinuousClock.now - lastSent >= .milliseconds(Int(lease * 1000 / 3)) {
                    client.send(bytes: WorkerReport.beat.json)
                    lastSent = .now
                }
                let unanswered = ContinuousClock.now - renewedAt
                if answersBeats, !runs.isEmpty, unanswered >= .milliseconds(Int(lease * 1000 / 2)) {
                    let seconds = String(format: "%.1f", unanswered / .seconds(1))
                    for run in runs.values where !run.isFinished {
                        say(
                            "job \(run.job) attempt \(run.attempt): no answer from the server for \(seconds) s; stopping it before "
                                + "its lease can run out and the job go to another worker")
                        run.abandon()
                    }
                    return .lost("no answer from the server for \(seconds) s")
                }
                if interrupted.isSet, !drainSent {
                    client.send(bytes: WorkerReport.drain.json)
                    drainSent = true
                }
                if interrupted.isSet, runs.isEmpty, outgoing.withLock({ $0.isEmpty }) {
                    client.close()
                    _ = client.next(timeout: 2)
                    return .finished
                }
            }
            guard let event = client.next(timeout: 0.05) else { continue }
            switch event {
            case .open:
                continue
            case .closed(let code, let reason):
                return .lost("connection closed\(code.map { " (\($0)\(reason.isEmpty ? "" : " \(reason)"))" } ?? "")")
            case .message(let text):
                guard let value = try? JSONParser.parse(Array(text.utf8), maxDepth: 64), let type = value["type"]?.stringValue else {
                    continue
                }
                switch type {
                case "accepted" where value["role"]?.stringValue == "worker" && !accepted && value["lease"] != nil:
                    accepted = true
                    sessionWasAccepted = true
                    lease = Double(value["lease"]?.intValue ?? 30)
                    answersBeats = value["answersBeats"]?.boolValue == true
                    // The first beat goes at once: its answer renews what the hello started.
                    lastBeat = .now - .seconds(lease)
                    say("working for \(url) as \(name): \(kinds.keys.sorted().joined(separator: ", ")) (\(slots) slot(s))")
                case "error" where !accepted:
                    let message = value["message"]?.stringValue ?? "refused"
                    if value["code"]?.stringValue == ErrorCode.shuttingDown.rawValue { return .lost(message) }
                    return .refused(message)
                case "beat" where accepted:
                    if !beatsUnanswered.isEmpty { renewedAt = beatsUnanswered.removeFirst() }
                case "assign":
                    assign(value)
                case "cancel":
                    if let job = value["job"]?.stringValue, let run = runs[JobID(job)],
                        run.attempt == value["attempt"]?.intValue.map(Int.init)
                    {
                        say("job \(job): cancel asked; ending its process group")
                        run.cancel()
                    }
                case "error":
                    let message = value["message"]?.stringValue ?? ""
                    if value["code"]?.stringValue == ErrorCode.leaseLost.rawValue, let job = value["job"]?.stringValue,
                        let run = runs[JobID(job)], run.attempt == value["attempt"]?.intValue.map(Int.init)
                    {
                        say("job \(job) attempt \(run.attempt): \(message); killing it")
                        run.abandon()
                    } else if value["code"]?.stringValue == ErrorCode.leaseLost.rawValue, let job = value["job"]?.stringValue {
                        // The run already ended; its queued reports are refused one by one: say it once.
                        if refusedJobs.insert(job).inserted { say("job \(job): \(message) (that run already ended)") }
                    } else {
                        say("server: \(message)")
                    }
                default:
                    continue
                }
            }
        }
    }

    /// Starts an assigned attempt; one that cannot start is answered with `fail` at once.
    private func assign(_ message: JSONValue) {
        guard let job = message["job"], let id = job["id"]?.stringValue, JobID.isWellFormed(id),
            let attempt = message["attempt"]?.intValue.map(Int.init), let kindName = job["kind"]?.stringValue
        else { return say("server sent an assign this worker cannot read: \(message)") }
        let report = enqueue
        guard let kind = kinds[kindName] else {
            return report(
                .fail(job: JobID(id), attempt: attempt, error: "worker \(name) does not run kind \(kindName)", exit: nil, cancelled: false))
        }
        do {
            let run = try AssignedRun(
                job: JobID(id), attempt: attempt, definition: kind, params: job["params"]?.objectValue ?? [:], report: report)
            runs[JobID(id)]?.abandon()
            runs[JobID(id)] = run
            say("job \(id) \(kindName) attempt \(attempt): started")
            run.start()
        } catch {
            report(
                .fail(
                    job: JobID(id), attempt: attempt, error: "worker \(name) cannot run it: \(error.message)", exit: nil, cancelled: false))
        }
    }

    /// Queues a report for the server. Thread: any (runs' threads).
    private var enqueue: @Sendable (WorkerReport) -> Void {
        { [outgoing] report in
            outgoing.withLock { queued in
                switch report {
                case .progress, .log, .results:
                    if queued.count >= Self.maxQueuedReports { return }
                default:
                    break
                }
                queued.append(report)
            }
        }
    }

    /// What happens whether connected or not: finished runs are let go (their last reports are
    /// queued by then); after `grace` seconds of stopping, running jobs are cancelled.
    private func tend() {
        runs = runs.filter { !$0.value.isFinished }
        if interrupted.isSet, stoppingSince == nil {
            stoppingSince = .now
            say("stopping: \(runs.count) job(s) running get \(Int(grace.rounded())) s to finish")
        }
        if let since = stoppingSince, !cancelledAll, ContinuousClock.now - since >= .milliseconds(Int(grace * 1000)) {
            cancelledAll = true
            if !runs.isEmpty { say("grace is over: cancelling \(runs.count) job(s)") }
            for run in runs.values { run.cancel() }
        }
    }

    private func say(_ text: String) {
        Output.line("herald work: \(text)")
    }

    /// SIGINT/SIGTERM start a graceful stop (see the type's comment) instead of ending the process.
    func installInterruptHandler() -> [DispatchSourceSignal] { interrupted.setOnSignals() }
}
