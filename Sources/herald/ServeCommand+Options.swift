import Foundation
import HeraldCluster
import HeraldEngine
import HeraldRedis
import HeraldLWS
import HeraldServer
import HeraldSupport

extension ServeCommand {
    /// Every setting `serve` takes, resolved from flags, the environment and defaults.
    struct Options {
        var server = ServerConfiguration()
        var engine = EngineConfiguration()
        var environment: JobEnvironment
        /// `--jobs FILE` or `$HERALD_JOBS`: command kinds besides the built-in ones.
        var jobsFile: String?
        /// `--redis URL [--node NAME] [--redis-prefix P]`: this server is a node of a cluster.
        var cluster: ClusterSettings?
        /// `--heap-trim-interval SECONDS`: how often free heap memory goes back to the kernel; 0: never.
        var heapTrimSeconds = 30.0
        /// `--search-threads N`: the most threads one search scans on.
        var searchThreads = SearchRunner.defaultThreads
        /// `--webhook-timeout SECONDS`: how long one webhook attempt may take (docs/webhooks.md).
        var webhookTimeoutSeconds = 10.0
        /// Who may see and do what (docs/security.md).
        var access: AccessOptions

        init(_ arguments: Arguments) throws(Arguments.UsageError) {
            let environmentVariables = ProcessInfo.processInfo.environment
            server.host = arguments.last("host") ?? server.host
            server.port = try arguments.integer("port", in: 0...65535) ?? server.port
            server.maxConnections = try arguments.integer("max-connections", in: 1...1_000_000) ?? server.maxConnections
            server.ioThreads = try arguments.integer("io-threads", in: 1...ServerConfiguration.maxIOThreads) ?? server.ioThreads
            server.maxMessageBytes = try arguments.integer("max-message-bytes", in: 256...16_777_216) ?? server.maxMessageBytes
            server.outboxCapBytes = try arguments.integer("outbox-bytes", in: 4096...1_073_741_824) ?? server.outboxCapBytes
            server.ringBytes = try arguments.integer("ring-bytes", in: 65_536...4_294_967_296) ?? server.ringBytes
            server.allowedOrigins = arguments.all("allow-origin")
            server.pingAfterSeconds = try arguments.integer("ping-after", in: 1...3600).map(UInt16.init) ?? server.pingAfterSeconds
            server.hangupAfterSeconds = try arguments.integer("hangup-after", in: 2...3600).map(UInt16.init) ?? server.hangupAfterSeconds
            guard server.pingAfterSeconds < server.hangupAfterSeconds else {
                throw Arguments.UsageError(description: "--ping-after must be less than --hangup-after (\(server.hangupAfterSeconds) s)")
            }
            server.shutdownGraceSeconds = try arguments.number("grace", in: 0...3600) ?? server.shutdownGraceSeconds
            heapTrimSeconds = try arguments.number("heap-trim-interval", in: 0...86_400) ?? heapTrimSeconds
            if let name = arguments.last("log-level") {
                guard let level = LogLevel(name: name) else {
                    throw Arguments.UsageError(description: "--log-level must be error, warning, info or debug, not \"\(name)\"")
                }
                server.logLevel = level
            }
            server.controlToken = try Self.token(arguments, environmentVariables)
            if let token = arguments.last("worker-token") ?? environmentVariables["HERALD_WORKER_TOKEN"], !token.isEmpty {
                guard token != server.controlToken else {
                    throw Arguments.UsageError(
                        description: "--worker-token must differ from the control token: a viewer's token is not a worker's")
                }
                server.workerToken = token
            }
            access = try AccessOptions(
                arguments, environment: environmentVariables, controlToken: server.controlToken, workerToken: server.workerToken)
            engine.workerLeaseSeconds = try arguments.number("worker-lease", in: 1...86_400) ?? engine.workerLeaseSeconds
            engine.webhookBackoff.scale = try arguments.number("webhook-retry-scale", in: 0.000_001...1) ?? engine.webhookBackoff.scale
            // Whole seconds: URLSession on Linux cannot time an attempt out in less than one.
            webhookTimeoutSeconds = try arguments.integer("webhook-timeout", in: 1...10).map(Double.init) ?? webhookTimeoutSeconds
            server.echoEndpoint = arguments.has("echo")
            switch (arguments.last("tls-cert"), arguments.last("tls-key")) {
            case (nil, nil): break
            case (let certificate?, let key?):
                for (flag, path) in [("tls-cert", certificate), ("tls-key", key)] where !FileManager.default.isReadableFile(atPath: path) {
                    throw Arguments.UsageError(description: "--\(flag) \(path): cannot read it")
                }
                server.tlsCertificatePath = certificate
                server.tlsKeyPath = key
            default:
                throw Arguments.UsageError(description: "--tls-cert and --tls-key go together")
            }
            server.publicDirectory = Self.publicDirectory(arguments.last("public") ?? environmentVariables["HERALD_PUBLIC"])
            if let explicit = arguments.last("public"), server.publicDirectory == nil {
                throw Arguments.UsageError(description: "--public \(explicit): no such folder")
            }

            engine.workers = try arguments.integer("workers", in: 1...256) ?? engine.workers
            if let searches = try arguments.integer("search-limit", in: 1...64) {
                engine.kindLimits[.search] = EngineConfiguration.KindLimit(maxConcurrent: searches, refuseWhenBusy: true)
            }
            searchThreads = try arguments.integer("search-threads", in: 1...SearchRunner.maxThreads) ?? searchThreads
            engine.progressEventsPerSecond = try arguments.number("progress-rate", in: 0.1...1000) ?? engine.progressEventsPerSecond
            engine.eventLogSize = try arguments.integer("event-log-size", in: 1...10_000_000) ?? engine.eventLogSize
            engine.eventLogBytes = try arguments.integer("event-log-bytes", in: 4096...(1 << 40)) ?? engine.eventLogBytes
            engine.retainedFinishedJobs = try arguments.integer("recent-jobs", in: 1...100_000) ?? engine.retainedFinishedJobs
            engine.keptResultBytes = try arguments.integer("kept-results-bytes", in: 0...(1 << 40)) ?? engine.keptResultBytes
            engine.history.archivedJobs = try arguments.integer("history-jobs", in: 0...100_000_000) ?? engine.history.archivedJobs
            engine.requestIdsKept = try arguments.integer("request-ids", in: 1...10_000_000) ?? engine.requestIdsKept
            engine.newsInterval = try arguments.number("news-interval", in: 0.1...86_400)
            engine.enableTicker = arguments.has("bench")
            jobsFile = arguments.last("jobs") ?? environmentVariables["HERALD_JOBS"].flatMap { $0.isEmpty ? nil : $0 }
            cluster = try Self.cluster(arguments, engine: engine)
            engine.nodeName = cluster?.node

            let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            let dataDirectory = URL(fileURLWithPath: arguments.last("data-dir") ?? ".herald", relativeTo: workingDirectory)
            let searchRoot = URL(fileURLWithPath: arguments.last("search-root") ?? ".", relativeTo: workingDirectory)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: searchRoot.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw Arguments.UsageError(description: "--search-root \(searchRoot.path): no such folder")
            }
            let probability = try arguments.number("news-probability", in: 0...1) ?? 0.5
            let seed = try arguments.integer("news-seed", in: 0...Int.max).map { UInt64($0) }
            environment = JobEnvironment(
                searchRoot: searchRoot, dataDirectory: dataDirectory,
                newsSource: NewsSource(probability: probability, seed: seed),
                maxSearchResults: try arguments.integer("max-results", in: 1...100_000) ?? 1000,
                sortCacheBytes: try arguments.integer("sort-cache-bytes", in: 0...(1 << 50)) ?? SortCache.defaultLimitBytes)
            cluster?.maxResults = environment.maxSearchResults
        }

        /// The cluster settings when `--redis` is given; `--node` and `--redis-prefix` need it.
        private static func cluster(_ arguments: Arguments, engine: EngineConfiguration) throws(Arguments.UsageError) -> ClusterSettings? {
            guard let url = arguments.last("redis") else {
                for flag in ["node", "redis-prefix", "node-lease", "redis-password-file"] where arguments.last(flag) != nil {
                    throw Arguments.UsageError(description: "--\(flag) needs --redis URL")
                }
                return nil
            }
            var address: RedisAddress
            // The error quotes the URL with its password left out (RedisAddress.redacted).
            do { address = try RedisAddress(url) } catch { throw Arguments.UsageError(description: "--redis: \(error)") }
            if let file = arguments.last("redis-password-file") {
                guard address.password == nil else {
                    throw Arguments.UsageError(description: "--redis-password-file: the --redis URL has a password already; give it once")
                }
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                    throw Arguments.UsageError(description: "--redis-password-file \(file): cannot read it")
                }
                // One line: the newline an editor or `echo` leaves is not part of the password.
                let password = text.hasSuffix("\r\n") ? String(text.dropLast(2)) : text.hasSuffix("\n") ? String(text.dropLast()) : text
                guard !password.isEmpty else { throw Arguments.UsageError(description: "--redis-password-file \(file) is empty") }
                address = address.with(password: password)
            }
            if let user = address.user, address.password == nil {
                throw Arguments.UsageError(
                    description: "--redis: user \(user) needs a password: USER:PASSWORD@ in the URL, or --redis-password-file")
            }
            let node = arguments.last("node") ?? ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "herald"
            guard ClusterSettings.isValidNodeName(node) else {
                throw Arguments.UsageError(description: "--node \"\(node)\": use 1 to 64 letters, digits, '-', '_' or '.'")
            }
            let prefix = arguments.last("redis-prefix") ?? "herald:"
            guard !prefix.isEmpty, prefix.utf8.count <= 64, !prefix.contains(where: { $0.isWhitespace }) else {
                throw Arguments.UsageError(description: "--redis-prefix must be 1 to 64 characters without spaces")
            }
            let lease = try arguments.number("node-lease", in: 2...3600) ?? 10
            var settings = ClusterSettings(
                address: address, node: node, keys: ClusterKeys(prefix: prefix), streamLength: engine.eventLogSize,
                retainedFinishedJobs: engine.retainedFinishedJobs, nodeTimeoutSeconds: lease)
            settings.historyJobs = engine.history.archivedJobs
            settings.requestIdsKept = engine.requestIdsKept
            settings.keptResultBytes = engine.keptResultBytes
            settings.auditLength = try arguments.integer("audit-stream-size", in: 1_000...10_000_000) ?? settings.auditLength
            return settings
        }

        private static func token(_ arguments: Arguments, _ environment: [String: String]) throws(Arguments.UsageError) -> String? {
            if let file = arguments.last("token-file") {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                    throw Arguments.UsageError(description: "--token-file \(file): cannot read it")
                }
                let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !token.isEmpty else { throw Arguments.UsageError(description: "--token-file \(file) is empty") }
                return token
            }
            if let token = arguments.last("token") ?? environment["HERALD_TOKEN"], !token.isEmpty { return token }
            return nil
        }

        /// The dashboard folder: the one given, else ./Public, else the checkout's Public beside
        /// `.build/<config>/herald`, else `share/herald/Public` beside an installed binary.
        private static func publicDirectory(_ explicit: String?) -> URL? {
            let manager = FileManager.default
            func folder(_ path: String) -> URL? {
                var isDirectory: ObjCBool = false
                let url = URL(fileURLWithPath: path).standardizedFileURL
                return manager.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue ? url : nil
            }
            if let explicit { return folder(explicit) }
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            let candidates = [
                manager.currentDirectoryPath + "/Public",
                executable.appendingPathComponent("../../Public").path,
                executable.appendingPathComponent("../../../Public").path,
                executable.appendingPathComponent("../share/herald/Public").path,
            ]
            return candidates.lazy.compactMap { folder($0) }.first {
                manager.fileExists(atPath: $0.appendingPathComponent("index.html").path)
            }
        }
    }
}
