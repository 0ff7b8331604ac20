import HeraldEngine

/// The server's counters for `/metrics`. A plain value owned by the service thread.
public struct ServerMetrics: Sendable {
    public var connectionsOpen = 0
    public var connectionsAccepted = 0
    public var connectionsRefused = 0
    public var framesSent = 0
    public var bytesSent = 0
    public var resyncs = 0
    public var slowClientCloses = 0
    /// Connections closed because their credential expired or was revoked (4001, 4003).
    public var credentialCloses = 0
    /// Connections dropped by the keepalive: nothing heard from them for `hangupAfterSeconds`.
    public var silentPeerCloses = 0
    public var httpRequests = 0
    /// Commands by "type/outcome", outcome being `ok` or an error code.
    public var commands: [String: Int] = [:]
    /// Delivery latency in seconds: one observation per write batch that holds a live event, the age
    /// of its oldest one (`observeDeliveryLatency`). Counts per upper bound (`deliveryLatencyBounds`,
    /// cumulative as Prometheus wants them), plus sum and count.
    public private(set) var deliveryLatencyBuckets = Array(repeating: 0, count: ServerMetrics.deliveryLatencyBounds.count)
    public private(set) var deliveryLatencySum: Double = 0
    public private(set) var deliveryLatencyCount = 0

    /// From a millisecond (a client on the same machine) to ten seconds (a client far behind).
    public static let deliveryLatencyBounds: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, .infinity]

    public init() {}

    public mutating func countCommand(_ type: String, outcome: String) {
        commands["\(type)/\(outcome)", default: 0] += 1
    }

    /// Records one write batch's worst case: seconds from its oldest live event's `ts` to the write.
    /// A negative age (the wall clock stepped back) counts as zero.
    public mutating func observeDeliveryLatency(seconds: Double) {
        let seconds = max(0, seconds)
        deliveryLatencySum += seconds
        deliveryLatencyCount += 1
        for (index, bound) in Self.deliveryLatencyBounds.enumerated() where seconds <= bound {
            deliveryLatencyBuckets[index] += 1
        }
    }

    /// The counters of several service threads' hubs as one server's: every count and the latency
    /// histogram added up (each thread counts only its own connections).
    public static func sum(_ parts: [ServerMetrics]) -> ServerMetrics {
        var total = ServerMetrics()
        for part in parts {
            total.connectionsOpen += part.connectionsOpen
            total.connectionsAccepted += part.connectionsAccepted
            total.connectionsRefused += part.connectionsRefused
            total.framesSent += part.framesSent
            total.bytesSent += part.bytesSent
            total.resyncs += part.resyncs
            total.slowClientCloses += part.slowClientCloses
            total.credentialCloses += part.credentialCloses
            total.silentPeerCloses += part.silentPeerCloses
            total.httpRequests += part.httpRequests
            total.commands.merge(part.commands, uniquingKeysWith: +)
            for index in total.deliveryLatencyBuckets.indices { total.deliveryLatencyBuckets[index] += part.deliveryLatencyBuckets[index] }
            total.deliveryLatencySum += part.deliveryLatencySum
            total.deliveryLatencyCount += part.deliveryLatencyCount
        }
        return total
    }

    /// Prometheus text exposition format, version 0.0.4. `heap`: the allocator's figures, read for
    /// this scrape (nil: left out).
    public func render(engine: EngineStatistics, heap: HeapFigures? = nil, uptimeSeconds: Double) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in samples { out += "\(name)\(labels) \(value)\n" }
        }
        metric("herald_uptime_seconds", "gauge", "Seconds since the server started.", [("", String(format: "%.3f", uptimeSeconds))])
        metric("herald_connections_open", "gauge", "Open WebSocket connections.", [("", "\(connectionsOpen)")])
        metric("herald_connections_accepted_total", "counter", "WebSocket connections accepted.", [("", "\(connectionsAccepted)")])
        metric("herald_connections_refused_total", "counter", "WebSocket handshakes refused.", [("", "\(connectionsRefused)")])
        metric("herald_frames_sent_total", "counter", "WebSocket frames written to clients.", [("", "\(framesSent)")])
        metric("herald_bytes_sent_total", "counter", "WebSocket bytes written to clients.", [("", "\(bytesSent)")])
        metric(
            "herald_progress_coalesced_total", "counter",
            "Progress values not sent: held back by the per-job rate bound.",
            [("{stage=\"dispatcher\"}", "\(engine.progressCoalesced)")])
        metric(
            "herald_resyncs_total", "counter", "Clients that fell off the shared ring (slow) or missed events, resynced with a snapshot.",
            [("", "\(resyncs)")])
        metric("herald_slow_client_closes_total", "counter", "Connections closed for resyncing too often.", [("", "\(slowClientCloses)")])
        metric(
            "herald_credential_closes_total", "counter", "Connections closed because their credential expired or was revoked.",
            [("", "\(credentialCloses)")])
        metric(
            "herald_silent_peer_closes_total", "counter", "Connections dropped by the keepalive: silent past the hang-up time.",
            [("", "\(silentPeerCloses)")])
        metric("herald_http_requests_total", "counter", "HTTP requests answered.", [("", "\(httpRequests)")])
        metric(
            "herald_commands_total", "counter", "Commands received, by type and outcome.",
            commands.sorted { $0.key < $1.key }.map { key, value in
                let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                return ("{type=\"\(parts[0])\",outcome=\"\(parts.count > 1 ? parts[1] : "")\"}", "\(value)")
            })
        metric(
            "herald_jobs_finished_total", "counter", "Jobs that ended, by kind and final state.",
            engine.finished.sorted { $0.key < $1.key }.map { key, value in
                let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                return ("{kind=\"\(parts[0])\",state=\"\(parts.count > 1 ? parts[1] : "")\"}", "\(value)")
            })
        metric("herald_jobs_running", "gauge", "Jobs running now.", [("", "\(engine.jobsRunning)")])
        metric("herald_progress_events_total", "counter", "Progress events emitted.", [("", "\(engine.progressEvents)")])
        metric("herald_job_retries_total", "counter", "Failed attempts that were retried.", [("", "\(engine.retries)")])
        metric("herald_workers_connected", "gauge", "Remote workers attached now.", [("", "\(engine.workersConnected)")])
        metric(
            "herald_worker_leases_lost_total", "counter", "Attempts lost because their worker went silent for its lease or disconnected.",
            [("", "\(engine.leasesLost)")])
        metric(
            "herald_worker_stale_reports_total", "counter",
            "Worker reports refused as lease_lost: about an attempt the worker no longer held.",
            [("", "\(engine.staleReports)")])
        metric("herald_event_seq", "gauge", "Sequence number of the newest event.", [("", "\(engine.seq)")])
        if !engine.schedules.isEmpty {
            metric(
                "herald_schedule_occurrences_total", "counter",
                "Schedules' occurrences: fired (a job started), skipped (overlap) or missed (while the server was down, beyond catchUp).",
                engine.schedules.flatMap { status in
                    [("fired", status.fired), ("skipped", status.skipped), ("missed", status.missed)].map { outcome, count in
                        ("{schedule=\"\(Self.labelValue(status.declaration.name))\",outcome=\"\(outcome)\"}", "\(count)")
                    }
                })
            metric(
                "herald_schedule_lateness_seconds", "gauge", "How late each schedule's last occurrence started (jitter included).",
                engine.schedules.compactMap { status in
                    status.lateness.map { ("{schedule=\"\(Self.labelValue(status.declaration.name))\"}", String(format: "%.3f", $0)) }
                })
        }
        metric(
            "herald_webhook_deliveries_total", "counter",
            "Webhook deliveries (docs/webhooks.md): delivered (a 2xx answer), retried (a failed attempt tried again later), given_up (every attempt failed).",
            [
                ("{outcome=\"delivered\"}", "\(engine.webhooks.delivered)"), ("{outcome=\"retried\"}", "\(engine.webhooks.retried)"),
                ("{outcome=\"given_up\"}", "\(engine.webhooks.givenUp)"),
            ])
        metric(
            "herald_storage_failing", "gauge",
            "1 while writes to the data folder fail (a full disk): history and logs wait in memory.",
            [("", engine.storageFailing ? "1" : "0")])
        metric(
            "herald_storage_write_failures_total", "counter", "Writes to the data folder (history, archive, logs) that failed.",
            [("", "\(engine.storageWriteFailures)")])
        metric(
            "herald_sort_cache_bytes", "gauge", "Bytes of sort data (numbers-*.bin, sorted-*.bin) in the data directory.",
            [("", "\(engine.sortCache.bytes)")])
        metric("herald_sort_cache_files", "gauge", "Sort data files in the data directory.", [("", "\(engine.sortCache.files)")])
        metric(
            "herald_sort_cache_limit_bytes", "gauge", "The bound on sort data (--sort-cache-bytes); 0: none.",
            [("", "\(engine.sortCache.limitBytes)")])
        metric(
            "herald_sort_cache_evictions_total", "counter", "Sort data files removed, least recently used first, to keep the bound.",
            [("", "\(engine.sortCache.evictions)")])
        metric(
            "herald_job_duration_seconds", "histogram", "How long jobs ran.",
            Self.histogram(
                bounds: EngineStatistics.durationBounds, buckets: engine.durationBuckets, sum: engine.durationSum,
                count: engine.durationCount))
        metric(
            "herald_delivery_latency_seconds", "histogram",
            "Seconds from an event's ts to the write that hands it to the client's socket. One observation per write batch "
                + "that holds a live event: the age of the batch's oldest event (its worst case); events replayed on resume "
                + "are not observed.",
            Self.histogram(
                bounds: Self.deliveryLatencyBounds, buckets: deliveryLatencyBuckets, sum: deliveryLatencySum,
                count: deliveryLatencyCount))
        if let heap {
            metric(
                "herald_heap_bytes", "gauge",
                "What malloc holds: in_use, the live heap; free, free chunks its arenas keep (resident or not).",
                [("{state=\"in_use\"}", "\(heap.inUseBytes)"), ("{state=\"free\"}", "\(heap.freeBytes)")])
        }
        if let cluster = engine.cluster { Self.render(cluster, degraded: engine.degraded != nil, into: metric) }
        return out
    }

    /// A cluster node's own families (docs/scaling.md).
    /// A label value as the text format wants it: backslash, double quote and newline escaped.
    static func labelValue(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func render(
        _ cluster: ClusterStatistics, degraded: Bool, into metric: (String, String, String, [(String, String)]) -> Void
    ) {
        let node = "{node=\"\(cluster.node)\"}"
        metric(
            "herald_cluster_redis_roundtrip_seconds", "gauge", "The last append pipeline's round trip to Redis.",
            [(node, String(format: "%.6f", cluster.redisRoundTripSeconds))])
        metric(
            "herald_cluster_stream_lag_seconds", "gauge", "From an event's ts to this node applying it, for the last entry read.",
            [(node, String(format: "%.6f", cluster.streamLagSeconds))])
        metric(
            "herald_cluster_publish_backlog", "gauge", "This node's events waiting to be appended.", [(node, "\(cluster.publishBacklog)")])
        metric(
            "herald_cluster_events_shed_total", "counter",
            "Progress, log and results events dropped because too many waited for Redis.", [(node, "\(cluster.eventsShed)")])
        metric(
            "herald_cluster_audit_backlog", "gauge", "This node's audit events waiting to be appended to the shared audit.",
            [(node, "\(cluster.auditBacklog)")])
        metric(
            "herald_cluster_audit_dropped_total", "counter",
            "Audit events left out of the shared audit because too many waited for Redis (still in audit.jsonl).",
            [(node, "\(cluster.auditDropped)")])
        metric(
            "herald_cluster_reclaims_total", "counter", "Jobs this node took over when their lease lapsed.", [(node, "\(cluster.reclaims)")]
        )
        metric(
            "herald_cluster_lease_entries_deleted_total", "counter", "Lease entries Redis reported deleted while their job was held.",
            [(node, "\(cluster.deletedLeaseEntries)")])
        metric(
            "herald_cluster_pages_forwarded_total", "counter", "Result pages this node asked of other nodes.",
            [(node, "\(cluster.pagesForwarded)")])
        metric(
            "herald_cluster_pages_served_total", "counter", "Result pages this node answered for other nodes.",
            [(node, "\(cluster.pagesServedForOthers)")])
        metric(
            "herald_cluster_stale_writes_total", "counter", "Events Redis refused because the job was no longer this node's.",
            [(node, "\(cluster.staleWrites)")])
        metric(
            "herald_cluster_epoch_resets_total", "counter", "Times this node found Redis under a new epoch.",
            [(node, "\(cluster.epochResets)")])
        metric("herald_cluster_degraded", "gauge", "1 while this node cannot reach Redis.", [(node, degraded ? "1" : "0")])
    }

    /// A histogram's samples: cumulative buckets by upper bound (`le`), then `_sum` and `_count`.
    static func histogram(bounds: [Double], buckets: [Int], sum: Double, count: Int) -> [(String, String)] {
        var samples: [(String, String)] = []
        for (index, bound) in bounds.enumerated() {
            let label = bound.isInfinite ? "+Inf" : String(bound)
            samples.append(("_bucket{le=\"\(label)\"}", "\(buckets[index])"))
        }
        samples.append(("_sum", String(format: "%.6f", sum)))
        samples.append(("_count", "\(count)"))
        return samples
    }
}
