import Foundation
import HeraldEngine
import HeraldRedis
import Synchronization

/// Reads the shared stream, and this node's control stream, on a thread of its own with its own
/// Redis connection (`XREAD BLOCK`, a second at a time), and hands what it read to the engine in
/// order. It is where a node notices that something is wrong with the stream:
/// - an entry whose seq is not the next one (Redis trimmed entries this node had not read, or the
///   stream restarted): it bootstraps again, and its viewers get a snapshot;
/// - a block that times out while Redis holds a different epoch (Redis lost its data: the new
///   stream's ids are below this node's position, so XREAD would wait for ever): the same.
/// A lost connection makes the node degraded; it reconnects with a capped backoff and reads on from
/// its last entry, so nothing is skipped. Once reconnected it waits (up to a second) for the node's
/// other connections before it reads on or bootstraps, so the node takes starts when its viewers see
/// Redis back.
///
/// Threads: `start` and `stop` from any thread; everything else on the tail thread only.
final class ClusterTail: @unchecked Sendable {
    // @unchecked Sendable: `link`, `position`, `controlPosition`, `epoch` and `needsBootstrap` are
    // touched only on the starting thread before `start`, then only on the tail thread; `stopping`
    // is atomic.
    struct Handlers: Sendable {
        /// A new view (first start, new epoch, or a gap): every viewer needs a snapshot.
        let bootstrapped: @Sendable (ClusterBootstrap) -> Void
        /// The next entries, in order, each the one after the last.
        let entries: @Sendable ([ClusterEntry]) -> Void
        let control: @Sendable ([ClusterControl]) -> Void
        let log: @Sendable (String) -> Void
    }

    private let settings: ClusterSettings
    private let health: ClusterHealth
    private let handlers: Handlers
    private let makeEpoch: @Sendable () -> String
    private let stopping = Atomic<Bool>(false)
    private let link: ClusterLink
    private var epoch: String?
    private var position: Int64 = 0
    private var controlPosition: String?
    private var needsBootstrap = true
    /// How many entries the next read asks for: about `readBytes` of them at the size of the last
    /// read's (an entry holds one event or a batch of up to 1 MiB), at most 5,000. Tail thread only.
    private var entriesPerRead = 5_000
    static let readBytes = 2 << 20

    init(settings: ClusterSettings, health: ClusterHealth, makeEpoch: @escaping @Sendable () -> String, handlers: Handlers) {
        self.settings = settings
        self.health = health
        self.makeEpoch = makeEpoch
        self.handlers = handlers
        self.link = ClusterLink(.tail, settings: settings, health: health)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "herald.cluster.tail"
        thread.start()
    }

    /// Ends the thread within about a block time (a second). Thread: any.
    func stop() { stopping.store(true, ordering: .relaxed) }

    /// Bootstraps once, on the calling thread, before the node serves anyone: a node does not start
    /// without Redis (`herald serve --redis` exits 2 when this throws). Thread: the starting thread,
    /// before `start`.
    func bootstrapNow() throws(ClusterFailure) {
        try bootstrap(try joined())
    }

    /// Refuses to join when a node of the same name was heard from within `nodeTimeoutSeconds`: two
    /// nodes of one name would share a control stream and each other's jobs. Thread: the starting thread.
    func refuseIfNodeIsRunning() throws(ClusterFailure) {
        let connection = try joined()
        let age: Double
        do { age = try connection.secondsSinceHeard(from: settings.node, keys: settings.keys) } catch { throw .redis(error) }
        // A live node beats every second; one restarted after a crash may join at once.
        if age < min(3, settings.nodeTimeoutSeconds) {
            throw .refused(
                "a node named \(settings.node) is running (heard from \(String(format: "%.1f", max(0, age))) s ago); give each node its own --node"
            )
        }
    }

    /// The tail's connection at start: Redis must answer (no retries). Thread: the starting thread.
    private func joined() throws(ClusterFailure) -> RedisConnection {
        do { return try link.connection().connection } catch { throw .redis(error) }
    }

    private func run() {
        while !stopping.load(ordering: .relaxed) {
            guard let (connection, fresh) = link.connectionOrPause() else { continue }
            // Back after a failure: the other connections, woken by this one, are given a moment to
            // come back too before the viewers hear of Redis again (a new epoch's snapshot), so a
            // start sent on that snapshot is taken rather than refused `unavailable`.
            if fresh { health.awaitEveryLink(within: 1) }
            do throws(ClusterFailure) {
                // Redis may have lost its data while this node could not see it.
                if fresh, let epoch, try current(connection) != epoch { needsBootstrap = true }
                if needsBootstrap { try bootstrap(connection) }
                try read(connection)
                link.worked()
            } catch {
                link.failed(error)
                if case .redis(let redisError) = error, redisError.isConnectionLost {
                    link.close()
                } else {
                    // Something Redis answered that a node cannot read: start again from a bootstrap.
                    handlers.log("reading the shared stream: \(error); bootstrapping again")
                    needsBootstrap = true
                }
                link.pause()
            }
        }
        link.close()
    }

    /// The epoch Redis holds now (nil: none, its data is gone).
    private func current(_ connection: RedisConnection) throws(ClusterFailure) -> String? {
        do { return try connection.command("GET", settings.keys.epoch).string } catch { throw .redis(error) }
    }

    private func bootstrap(_ connection: RedisConnection) throws(ClusterFailure) {
        let read = try ClusterBootstrap.read(connection, keys: settings.keys, freshEpoch: makeEpoch())
        if controlPosition == nil {
            // Requests sent to this node before it started were for a node that is gone.
            controlPosition = try lastID(of: settings.keys.control(settings.node), connection)
        }
        epoch = read.epoch
        position = read.seq
        needsBootstrap = false
        handlers.bootstrapped(read)
    }

    private func lastID(of stream: String, _ connection: RedisConnection) throws(ClusterFailure) -> String {
        do {
            let reply = try connection.command("XREVRANGE", stream, "+", "-", "COUNT", "1")
            return reply.array?.first?.array?.first?.string ?? "0-0"
        } catch {
            throw .redis(error)
        }
    }

    /// One `XREAD BLOCK` of both streams, up to `entriesPerRead` of the shared one: a node that fell
    /// behind catches up in a few large reads (Redis's cost is per read as much as per entry), and
    /// what one read holds stays about `readBytes` (entries of one event are about 400 bytes, one of a
    /// batch up to `ClusterBatchBound.publisher`'s 1 MiB).
    private func read(_ connection: RedisConnection) throws(ClusterFailure) {
        let control = settings.keys.control(settings.node)
        let reply: RedisReply
        do {
            reply = try connection.command(
                "XREAD", "COUNT", "\(entriesPerRead)", "BLOCK", "1000", "STREAMS", settings.keys.events, control, "\(position)-0",
                controlPosition ?? "0-0")
        } catch {
            throw .redis(error)
        }
        if let message = reply.errorMessage { throw .unexpected("XREAD: \(message)") }
        guard let streams = reply.array else {
            // A second without entries: is the stream still the one this node follows?
            if try current(connection) != epoch {
                handlers.log("Redis has a new epoch (its data was lost); bootstrapping again")
                needsBootstrap = true
            }
            return
        }
        for stream in streams {
            guard let pair = stream.array, pair.count == 2, let name = pair[0].string, let entries = pair[1].array else {
                throw .unexpected("XREAD answered \(stream)")
            }
            if name == control {
                takeControl(entries)
            } else {
                try takeEvents(entries)
            }
        }
    }

    /// Each entry holds one event or one node's batch, numbered on from the entry's id (`ClusterEntry`).
    private func takeEvents(_ entries: [RedisReply]) throws(ClusterFailure) {
        var batch: [ClusterEntry] = []
        batch.reserveCapacity(entries.count)
        var bytes = 0
        defer { entriesPerRead = max(1, min(5_000, Self.readBytes / max(1, bytes / max(1, entries.count)))) }
        for entry in entries {
            guard let parts = entry.array, parts.count == 2, let id = parts[0].string, let fields = parts[1].array else {
                throw .unexpected("a stream entry \(entry)")
            }
            let seq = Int64(id.prefix { $0 != "-" }) ?? -1
            guard seq == position + 1 else {
                // Entries this node never read are gone (trimmed), or the stream restarted.
                handlers.log("the shared stream went from seq \(position) to \(seq); bootstrapping again")
                needsBootstrap = true
                break
            }
            bytes += fields.reduce(0) { $0 + ($1.bytes?.count ?? 0) }
            guard let decoded = ClusterEntry.events(firstSeq: seq, fields: fields) else {
                handlers.log("entry \(id) of the shared stream does not decode; bootstrapping again")
                needsBootstrap = true
                break
            }
            batch.append(contentsOf: decoded)
            position = seq + Int64(decoded.count) - 1
        }
        if !batch.isEmpty { handlers.entries(batch) }
    }

    private func takeControl(_ entries: [RedisReply]) {
        var requests: [ClusterControl] = []
        for entry in entries {
            guard let parts = entry.array, parts.count == 2, let id = parts[0].string else { continue }
            controlPosition = id
            if let fields = parts[1].array, let request = ClusterControl(fields: fields) {
                requests.append(request)
            } else {
                handlers.log("control entry \(id) is not a request this node knows; skipped")
            }
        }
        if !requests.isEmpty { handlers.control(requests) }
    }
}
