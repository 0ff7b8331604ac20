import Dispatch
import Foundation
import HeraldEngine
import HeraldServer
import HeraldSupport

/// A whole Herald server in one value: a `JobDispatcher` with the given runners, its history in the
/// data folder, and a `WebSocketServer` in front of it. It is what `herald serve` runs, and what a
/// Swift program that brings its own `JobRunner`s starts in a few lines:
///
/// ```swift
/// let app = HeraldApp(runners: [CountdownRunner()], port: 0)
/// let port = try app.start()
/// app.runUntilSignal()
/// ```
///
/// Only the runners given are offered; pass `JobCatalog.standardRunners() + mine` to keep `search`,
/// `sort` and `fetch` too.
///
/// Threads: every member may be used from any thread, except that `stop` and `runUntilSignal` block
/// their caller (not the dispatcher queue, nor the server's service thread).
public final class HeraldApp: Sendable {
    /// The dispatcher that runs this process's jobs.
    public let engine: JobDispatcher
    /// What the server talks to: `engine` itself, or what `front` made around it (a cluster node).
    public let front: any JobEngine
    public let server: WebSocketServer
    public let logger: Logger
    /// Signalled by a signal `runUntilSignal` listens for, and by `stop`, so that either ends the wait.
    private let stopRequested = DispatchSemaphore(value: 0)

    /// The settings most programs change; every other one is `ServerConfiguration`'s and
    /// `EngineConfiguration`'s default. `port` 0 picks a free port (`start` returns it); the data
    /// folder (history) is made if missing; without `publicDirectory` there is no dashboard (`/` answers
    /// 404 with a line saying so). `version` is what `/healthz` reports. Thread: any.
    public convenience init(
        runners: [any JobRunner], host: String = "127.0.0.1", port: Int = 8080,
        dataDirectory: URL = URL(fileURLWithPath: ".herald"), publicDirectory: URL? = nil,
        logLevel: LogLevel = .info, version: String = "dev"
    ) {
        var server = ServerConfiguration()
        server.host = host
        server.port = port
        server.publicDirectory = publicDirectory
        server.logLevel = logLevel
        let environment = JobEnvironment(
            searchRoot: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), dataDirectory: dataDirectory,
            newsSource: NewsSource())
        self.init(runners: runners, server: server, environment: environment, version: version)
    }

    /// Every setting. `inbox` may be made first by a caller that paces a producer by it (`herald
    /// serve --bench`); `logger` defaults to one at `server.logLevel`. `front`, when given, makes
    /// the engine the server talks to around the dispatcher (`herald serve --redis`: a cluster node);
    /// it is closed after the dispatcher shut down. Thread: any.
    public init(
        runners: [any JobRunner], server: ServerConfiguration, engine: EngineConfiguration = EngineConfiguration(),
        environment: JobEnvironment, logger: Logger? = nil, version: String, inbox: DeliveryInbox = DeliveryInbox(),
        front: ((JobDispatcher) -> any JobEngine)? = nil
    ) {
        let logger = logger ?? Logger(level: server.logLevel)
        let history = HistoryStore(directory: environment.dataDirectory, limits: engine.history) { logger.warning($0) }
        // Sort data left by earlier runs counts from the start (and is trimmed to the bound).
        environment.sortCache.load()
        self.logger = logger
        self.engine = JobDispatcher(configuration: engine, environment: environment, runners: runners, history: history)
        self.front = front?(self.engine) ?? self.engine
        self.server = WebSocketServer(configuration: server, engine: self.front, logger: logger, version: version, inbox: inbox)
    }

    /// Starts listening, then firing the jobs file's schedules; returns the port (the chosen one when
    /// the configuration says 0).
    /// Throws `WebSocketServer.StartError` when the address cannot be listened on. Thread: any.
    @discardableResult
    public func start() throws -> Int {
        let port = try server.start()
        engine.startSchedules()
        return port
    }

    /// The dashboard's address once started, e.g. `http://127.0.0.1:8080/`: what `herald serve`
    /// prints as its first line (a server on all interfaces is shown as 127.0.0.1). Thread: any.
    public var url: String? {
        guard let port = server.port else { return nil }
        let configuration = server.configuration
        let host = configuration.host == "0.0.0.0" ? "127.0.0.1" : configuration.host
        return "\(configuration.tlsCertificatePath == nil ? "http" : "https")://\(host):\(port)/"
    }

    /// Closes every client with 1001, then gives running jobs `shutdownGraceSeconds` to finish before
    /// cancelling them, and writes history. Ends a `runUntilSignal` wait. Safe to call more than once.
    /// Thread: any but the dispatcher queue and the service thread; blocks until jobs have ended.
    public func stop() {
        stopRequested.signal()
        server.stop()
        engine.shutdown(grace: server.configuration.shutdownGraceSeconds)
        front.close()
    }

    /// Waits for SIGINT or SIGTERM (or a `stop` from another thread), then stops as `stop` does and
    /// returns: the end of a program's main code, after `start`. While it waits, those two signals do
    /// not end the process by themselves (what they did before is restored on return); SIGPIPE stays
    /// ignored (a client that hangs up must not kill the server). `ready` runs once the signals are
    /// caught: a program says it is up there (a SIGTERM sent on that word then stops it, never
    /// lost between ignoring the signal and catching it). Thread: one thread at a time (usually the
    /// main thread); blocks it.
    public func runUntilSignal(ready: () -> Void = {}) {
        signal(SIGPIPE, SIG_IGN)
        // Ignored, so that only the dispatch sources below see them.
        let previous = [SIGINT, SIGTERM].map { ($0, signal($0, SIG_IGN)) }
        let signalled = DispatchSemaphore(value: 0)
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [stopRequested] in
                signalled.signal()
                stopRequested.signal()
            }
            source.resume()
            return source
        }
        ready()
        stopRequested.wait()
        if signalled.wait(timeout: .now()) == .success {
            logger.info("signal received: stopping (jobs get \(server.configuration.shutdownGraceSeconds) s to finish)")
        }
        stop()
        logger.info("bye")
        for source in sources { source.cancel() }
        for (number, handler) in previous { signal(number, handler) }
    }
}
