import HeraldAccess
import Foundation
import HeraldBench
import HeraldCluster
import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldSupport
import HeraldWebhooks

/// `herald serve`: builds the engine and the server from flags, prints the URL, runs until a signal.
enum ServeCommand {
    static let valued: Set<String> = [
        "host", "port", "public", "data-dir", "search-root", "workers", "search-limit", "max-results", "progress-rate",
        "event-log-size", "event-log-bytes", "news-interval", "news-probability", "news-seed", "max-connections", "io-threads",
        "max-message-bytes",
        "outbox-bytes", "allow-origin", "token", "token-file", "grace", "log-level", "tls-cert", "tls-key", "jobs",
        "worker-token", "worker-lease", "ring-bytes", "ping-after", "hangup-after",
        "recent-jobs", "kept-results-bytes", "history-jobs", "request-ids", "redis", "redis-password-file", "node", "redis-prefix",
        "node-lease", "audit-stream-size",
        "heap-trim-interval", "sort-cache-bytes", "search-threads", "webhook-retry-scale", "webhook-timeout",
        "trust-user-header", "trusted-proxy", "proxy-role", "jwt-key", "jwks", "jwt-audience", "jwt-issuer", "users", "session-idle",
    ]
    static let flags: Set<String> = ["help", "bench", "echo", "public-view"]

    static func run(_ argv: [String]) -> Int32 {
        let options: Options
        do {
            let arguments = try Arguments(argv, valued: valued, flags: flags)
            if arguments.has("help") {
                print(Help.serve)
                return 0
            }
            guard arguments.positionals.isEmpty else {
                throw Arguments.UsageError(description: "unexpected argument \(arguments.positionals[0])")
            }
            options = try Options(arguments)
        } catch {
            FileHandle.standardError.write(Data("herald: \(error)\nRun `herald serve --help` for the options.\n".utf8))
            return 2
        }
        // A bad jobs file stops the server before anything starts: one line, status 2.
        var contents = JobsFileContents(kinds: [])
        if let path = options.jobsFile {
            do { contents = try JobsFile.loadContents(path: path) } catch {
                FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
                return 2
            }
        }
        return serve(options, contents)
    }

    private static func serve(_ options: Options, _ contents: JobsFileContents) -> Int32 {
        let (commandKinds, schedules) = (contents.kinds, contents.schedules)
        MallocSettings.apply(environment: ProcessInfo.processInfo.environment)
        let heapTrimmer = HeapTrimmer.start(every: options.heapTrimSeconds)
        defer { withExtendedLifetime(heapTrimmer) {} }
        let logger = Logger(level: options.server.logLevel)
        defer { logger.flush() }
        let files = OpenFilesLimit.raise(forConnections: options.server.maxConnections)
        if let line = files.line {
            if files.isWarning { logger.warning(line) } else { logger.info(line) }
        }
        let inbox = DeliveryInbox()
        var runners = JobCatalog.standardRunners(searchThreads: options.searchThreads)
        var engineConfiguration = options.engine
        engineConfiguration.schedules = schedules
        engineConfiguration.webhooks = contents.notify
        // A cluster node's viewers resume from its view of the shared stream, which keeps
        // --event-log-size events; its dispatcher's own log would only hold the same events twice.
        if options.cluster != nil { engineConfiguration.eventLogSize = 1 }
        for kind in commandKinds {
            engineConfiguration.kindLimits[kind.name] = EngineConfiguration.KindLimit(
                maxConcurrent: kind.concurrency, refuseWhenBusy: kind.whenBusy == .refuse)
            // A kind without `command` runs only on workers (`herald work`); its jobs wait in `queued`
            // until one that serves it is attached.
            runners.append(CommandRunner(kind))
        }
        if options.engine.enableTicker {
            // A rate-0 ticker is paced by delivery: it waits while the server holds more undelivered
            // events than this (far below the inbox's overflow point, where clients' outboxes would grow
            // to megabytes and fan-out would collapse; docs/benchmarks.md), and while more than a
            // tenth of the clients hold a backlog (else clients that read slower than the server
            // writes are resynced, and a benchmark counts gaps).
            runners.append(TickerRunner(mayEmit: { inbox.undeliveredEvents <= 4096 && !inbox.deliveryIsBehind }))
        }
        var server = options.server
        let access = AccessControl(settings: options.access.settings, verifiers: options.access.verifiers)
        server.access = access
        let dataDirectory = options.environment.dataDirectory
        do {
            server.shareLinks = try ShareLinkStore(dataDirectory: dataDirectory) { logger.error($0) }
        } catch {
            FileHandle.standardError.write(Data("herald: share links: \(error)\n".utf8))
            return 2
        }
        let audit = AuditTrail(directory: dataDirectory) { logger.warning($0) }
        for line in audit.open() { logger.warning("audit: \(line)") }
        server.audit = audit
        var credentialFiles: CredentialFiles?
        var fixedVerifiers = options.access.verifiers
        fixedVerifiers.append(server.shareLinks!)
        if let (path, directory) = options.access.usersFile {
            let sessions = SessionVerifier(idleTimeout: options.access.sessionIdle, directory: directory)
            server.sessions = sessions
            credentialFiles = CredentialFiles(
                path: path, directory: directory, access: access, sessions: sessions, fixed: fixedVerifiers, audit: audit
            ) { logger.info($0) }
            credentialFiles?.watch()
        } else {
            access.replaceVerifiers(fixedVerifiers)
        }
        defer { withExtendedLifetime(credentialFiles) {} }
        let app = HeraldApp(
            runners: runners, server: server, engine: engineConfiguration, environment: options.environment, logger: logger,
            version: Version.herald, inbox: inbox,
            front: options.cluster.map { settings in
                { local in ClusterEngine(local: local, settings: settings) { logger.warning($0) } }
            })
        if let node = app.front as? ClusterEngine, let settings = options.cluster {
            // A node does not start without Redis: one clear line, status 2.
            do { try node.start() } catch {
                FileHandle.standardError.write(Data("herald: --redis \(settings.address): \(error)\n".utf8))
                return 2
            }
            logger.info("node \(settings.node) of the cluster at \(settings.address) (keys \(settings.keys.prefix)*), epoch \(node.epoch)")
            // Every audit event also goes to the cluster's shared audit, which any node reads.
            audit.share(with: node)
        }
        let port: Int
        do { port = try app.start() } catch {
            FileHandle.standardError.write(Data("herald: \(error)\n".utf8))
            return 1
        }
        if !contents.notify.isEmpty, let url = app.url {
            app.engine.startWebhooks(
                transport: URLSessionWebhookTransport(timeout: options.webhookTimeoutSeconds, userAgent: "herald/\(Version.herald)"),
                jobLink: url + "api/jobs/")
        }
        app.runUntilSignal {
            // What start-up found (a torn journal line, files set aside) is in the log before the URL.
            logger.flush()
            // The first line is the dashboard's URL: scripts and tests read it to find a port-0
            // server, and may stop it with SIGTERM as soon as they have.
            Output.line(app.url ?? "")
            logger.info(
                "herald \(Version.herald) listening on \(options.server.host):\(port); dashboard from \(options.server.publicDirectory?.path ?? "(none found)"); data in \(options.environment.dataDirectory.path); searching \(options.environment.searchRoot.path)"
            )
        }
        server.shareLinks?.flush()
        audit.flush()
        return 0
    }
}
