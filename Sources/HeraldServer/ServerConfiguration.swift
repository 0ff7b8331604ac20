import Foundation
import HeraldAccess
import HeraldEngine
import HeraldSupport

/// How the server listens and what it allows. Every field has the default a user gets without flags;
/// `docs/operations.md` lists them with their flags.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port; `WebSocketServer.port` tells which.
    public var port = 8080
    /// The dashboard's folder; nil serves a short page that says where it was looked for.
    public var publicDirectory: URL?
    public var maxMessageBytes = 64 * 1024
    public var maxBodyBytes = 64 * 1024
    public var maxConnections = 10_000
    /// Pending bytes a slow client may hold before its progress is collapsed and then resynced.
    public var outboxCapBytes = 1024 * 1024
    /// Bytes of framed events the shared ring keeps (`--ring-bytes`): how far behind the newest event
    /// a connection may fall before it is resynced. Server memory for the stream is this, whatever
    /// the clients do.
    public var ringBytes = 4 * 1024 * 1024
    /// Service threads, each with its own libwebsockets context, connections and hub, reading one
    /// shared ring (docs/architecture.md, "Several service threads"); 1: one context on one thread.
    /// Default: the number of cores, at most `maxIOThreads`.
    public var ioThreads = min(ProcessInfo.processInfo.activeProcessorCount, ServerConfiguration.maxIOThreads)
    /// The most service threads `ioThreads` may ask for.
    public static let maxIOThreads = 16
    public var resyncLimit = 3
    public var resyncWindowSeconds = 10.0
    public var commandsPerSecond = 50.0
    public var commandBurst = 100.0
    /// Seconds without hearing from a peer before it is pinged, and before it is dropped
    /// (`StreamHub.sweepKeepalive`).
    public var pingAfterSeconds: UInt16 = 10
    public var hangupAfterSeconds: UInt16 = 30
    /// Bytes written per system call at most, in whole frames.
    public var writeBatchBytes = 64 * 1024
    /// Origins allowed besides the server's own; clients that send no Origin are always allowed.
    public var allowedOrigins: [String] = []
    /// When set, `start`, `cancel` and mutating REST calls need it (or another identity that may).
    public var controlToken: String?
    /// Who may see and do what (users file, keys, JWTs, share links, a trusted proxy); nil: only the
    /// control and worker tokens above (`accessSettings`).
    public var access: AccessControl?
    /// Share links (`POST /api/jobs/{id}/share`); nil: the server makes none.
    public var shareLinks: ShareLinkStore?
    /// Sign-in sessions (`--users`); nil: no one signs in with a password.
    public var sessions: SessionVerifier?
    /// The audit trail (`audit.jsonl`); nil: nothing is recorded.
    public var audit: AuditTrail?
    /// When each key's REST use was last recorded in the audit: one for the server, shared by every
    /// copy of the configuration (a class), so every service thread's hub counts the same uses.
    public var credentialUses = CredentialUseLog()
    /// When set, a worker's `hello` (or an `auth` before it) must present it; when nil, workers are
    /// taken from loopback peers only (docs/workers.md). A control token is not a worker token.
    public var workerToken: String?
    /// Grace period for running jobs on SIGTERM before they are cancelled.
    public var shutdownGraceSeconds = 5.0
    public var logLevel: LogLevel = .info
    /// PEM certificate and key: serve https and wss on the same port.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// Test-only: `/echo` echoes every message back (for the Autobahn conformance suite).
    public var echoEndpoint = false
    /// The largest message the echo endpoint takes (Autobahn sends up to 16 MiB).
    public var echoMaxMessageBytes = 16 * 1024 * 1024

    public init() {}

    /// The access settings of the tokens alone, for a server built without `access`.
    public var accessSettings: AccessSettings {
        var settings = AccessSettings()
        settings.controlToken = controlToken
        settings.workerToken = workerToken
        return settings
    }
}
