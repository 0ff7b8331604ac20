import Foundation

/// Runs a command kind's program as a job (docs/jobs.md): argv from the declaration and the
/// validated params, in its own session; progress from its output (the progress protocol, or a
/// percentage on a log line); its other output streamed as `log` events; cancel and timeout end the
/// whole process group (SIGTERM, `grace`, SIGKILL) and the job ends only when none of it is left.
///
/// Thread: `validate` on the dispatcher queue; `run` on the job's worker thread, which owns the
/// program, its pipes and the line buffers.
public struct CommandRunner: JobRunner {
    public let definition: CommandKind
    /// The server's own environment: the base a job's environment is made from.
    let baseEnvironment: [String: String]

    /// Log lines streamed per batch at most (a batch goes out every `logInterval` seconds at most):
    /// a program that floods its output costs bounded memory; the rest are counted as skipped.
    static let maxLinesPerBatch = 1000
    static let logInterval = 0.1
    /// How long output is still read after the program exited (a child it left may hold the pipes).
    static let drainAfterExit = 1.0

    public init(_ definition: CommandKind, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.definition = definition
        self.baseEnvironment = environment
    }

    public var kind: JobKind { definition.name }

    public var catalogEntry: JSONObject? {
        var entry = definition.json
        entry["maxConcurrent"] = nil
        entry["refuseWhenBusy"] = nil
        return entry
    }

    public var retryPolicy: RetryPolicy? { RetryPolicy(retries: definition.retries, delay: definition.retryDelay) }

    /// A kind declared without `command` runs only on remote workers (docs/workers.md).
    public var runsLocally: Bool { definition.command != nil }

    public func validate(_ params: JSONObject, environment: JobEnvironment) throws(EngineError) -> JSONObject {
        try definition.validate(params)
    }

    public func run(_ context: JobContext) throws -> JSONObject {
        let argv = definition.argv(for: context.params)
        guard let first = argv.first, let executable = JobsFile.executable(first, searchPath: baseEnvironment["PATH"]) else {
            throw JobFailure("command \"\(argv.first ?? "")\" is no longer an executable file")
        }
        var environment = baseEnvironment
        for (key, value) in definition.environment { environment[key] = value }
        environment["HERALD_JOB_ID"] = context.id.rawValue
        environment["HERALD_ATTEMPT"] = String(context.attempt)
        environment["HERALD_PARAMS"] = String(decoding: JSONWriter.encode(.object(context.params)), as: UTF8.self)
        environment["PYTHONUNBUFFERED"] = "1"
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                executable: executable, argv: argv, environment: environment, cwd: definition.cwd,
                progressOnDescriptor3: definition.progressFrom == .fd3)
        } catch {
            throw JobFailure(error.description)
        }
        var session = OutputSession(context: context, protocolOnStdout: definition.progressFrom == .stdout)
        let outcome = supervise(child, &session, context)
        session.flushLog(force: true)
        switch outcome {
        case .cancelled:
            throw JobCancelled()
        case .timedOut:
            throw JobFailure("timed out after \(Self.seconds(definition.timeout ?? 0)) s")
        case .exited(.code(0)):
            context.recordExit(["code": 0])
            return session.result ?? [:]
        case .exited(.code(let code)):
            context.recordExit(["code": .int(Int64(code))])
            let last = session.lastStderrLine.map { ": \($0)" } ?? ""
            throw JobFailure("exit status \(code)\(last)")
        case .exited(.signal(let signal)):
            let name = ChildProcess.name(ofSignal: signal)
            context.recordExit(["signal": .string(name)])
            throw JobFailure("killed by signal \(name)")
        }
    }

    private enum Outcome {
        case exited(ChildProcess.Exit)
        case cancelled
        case timedOut
    }

    /// Reads output until the program ended (and its pipes are closed, or a second passed), ending
    /// the group on cancel or timeout: SIGTERM, `grace` seconds, SIGKILL, then until none is left.
    private func supervise(_ child: ChildProcess, _ session: inout OutputSession, _ context: JobContext) -> Outcome {
        let clock = ContinuousClock()
        let started = clock.now
        var streams: [(descriptor: Int32, stream: OutputSession.Source)] = [(child.stdout, .stdout), (child.stderr, .stderr)]
        if let progress = child.progress { streams.append((progress, .descriptor3)) }
        var exit: ChildProcess.Exit?
        var exitedAt: ContinuousClock.Instant?
        var stopping: (reason: Outcome, since: ContinuousClock.Instant, killed: Bool)?
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if !streams.isEmpty {
                var polls = streams.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
                _ = poll(&polls, nfds_t(polls.count), 50)
                var open: [(descriptor: Int32, stream: OutputSession.Source)] = []
                for (index, entry) in streams.enumerated() {
                    guard polls[index].revents != 0 else {
                        open.append(entry)
                        continue
                    }
                    let count = buffer.withUnsafeMutableBytes { read(entry.descriptor, $0.baseAddress, $0.count) }
                    if count > 0 {
                        buffer.withUnsafeBytes { session.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count]), from: entry.stream) }
                        open.append(entry)
                    } else if count < 0, errno == EAGAIN || errno == EINTR {
                        open.append(entry)
                    } else {
                        session.finish(entry.stream)
                    }
                }
                streams = open
            } else {
                usleep(20_000)
            }
            session.flushLog(force: false)
            if exit == nil, let ended = child.reap() {
                exit = ended
                exitedAt = clock.now
            }
            let now = clock.now
            if stopping == nil {
                if context.isCancelled {
                    stopping = (.cancelled, now, false)
                } else if let timeout = definition.timeout, now - started >= .seconds(timeout) {
                    stopping = (.timedOut, now, false)
                }
                if stopping != nil { child.signalGroup(SIGTERM) }
            }
            if let current = stopping, !current.killed, now - current.since >= .seconds(definition.grace) {
                child.signalGroup(SIGKILL)
                stopping?.killed = true
            }
            if let current = stopping {
                // Cancelled or timed out: over only when the leader was reaped and nobody of its group lives.
                if exit != nil, !child.groupIsAlive() {
                    for entry in streams { session.finish(entry.stream) }
                    return current.reason
                }
                continue
            }
            if let exit, let exitedAt, streams.isEmpty || now - exitedAt >= .seconds(Self.drainAfterExit) {
                for entry in streams { session.finish(entry.stream) }
                return .exited(exit)
            }
        }
    }

    static func seconds(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }
}
