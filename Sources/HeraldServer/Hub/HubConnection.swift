import HeraldAccess
import HeraldEngine

/// One WebSocket client as the hub sees it. Thread: the service thread only (created, used and
/// dropped inside `StreamHub`).
final class HubConnection {
    /// Sends the replies held back until the stream began.
    func releaseHeldReplies() {
        guard let held = heldReplies else { return }
        heldReplies = nil
        for frame in held { outbox.append(frame) }
    }

    // What every event reads of every connection (`StreamHub.deliver`, `writable`) comes first, so
    // that it shares the object's first cache lines: at 5,000 connections each line is a miss.
    /// Leaving `.live` drops the cursor: only a live connection reads the ring.
    var stream: StreamPosition {
        didSet {
            if case .live = stream {} else { cursor = nil }
        }
    }
    /// The ring entry to send next, while live (`FrameRing`); nil otherwise.
    var cursor: Int64?
    /// Whether the hub's count of backlogged connections includes this one (`StreamHub.backlogCount`).
    var countedAsBacklogged = false
    /// Holds a place under the server's connection limit shared by several service threads
    /// (`HubSharing.connections`), to give back when it closes.
    var holdsBudgetPlace = false
    /// Whether the keepalive's ping waits for a writable callback (`StreamHub.sweepKeepalive`).
    var pingDue = false
    /// Set when the connection must close at its next writable callback, with this code and reason.
    var pendingClose: (code: UInt16, reason: String)?
    var outbox: Outbox

    let id: ConnectionID
    let peer: String
    var commandBucket: TokenBucket
    /// Whether it fell off the ring and waits to be able to write before its snapshot is asked for.
    var isBehind: Bool {
        if case .behind = stream { return true }
        return false
    }
    /// The message being received, across fragments.
    var inbound: [UInt8] = []
    var inboundIsBinary = false
    /// Keepalive (`StreamHub.sweepKeepalive`): when the peer was last heard from (a message fragment
    /// or a pong; seconds on the hub's monotonic clock), and when the hub last decided to ping it (nil
    /// once it answered).
    var lastHeard: Double
    var pingAskedAt: Double?
    /// Whether the hub already told the transport to drop it (for its silence, or a close it could
    /// not be sent: `StreamHub.sweepKeepalive`).
    var isDropped = false
    /// When the keepalive sweep first found `pendingClose` waiting for a writable callback (seconds on
    /// the hub's monotonic clock); nil until then.
    var closeWaitingSince: Double?
    /// Set once `writable` said to close it: libwebsockets has the close (and its own timeout for the
    /// peer's answer).
    var isCloseHandedOver = false
    /// Who the handshake (or a later `auth`) proved this client to be: every command is checked
    /// against it, and the stream it is sent is limited to its scope.
    var principal: Principal {
        didSet { scope = principal.scope.isUnlimited ? nil : principal.scope }
    }
    /// The principal's scope when it is limited (a share link, a key or JWT naming jobs or kinds): the
    /// frames of the shared ring outside it are skipped. nil: every frame (the common case, checked first).
    private(set) var scope: AccessScope?
    /// Set once the engine accepted the connection's `hello`: it gets directives, not the event stream.
    var isWorker = false
    /// Set from `hello` until the engine answered it.
    var isWorkerHelloPending = false
    var closeCodeFromPeer: UInt16?
    /// A connection to the test-only `/echo` endpoint: no events, every message echoed.
    let isEcho: Bool
    /// Replies made before the connection's first snapshot (or resume) was sent wait here, so the
    /// snapshot is always the first message; nil once it was.
    var heldReplies: [OutboundFrame]? = []

    init(id: ConnectionID, peer: String, outbox: Outbox, commandBucket: TokenBucket, principal: Principal, isEcho: Bool, now: Double) {
        self.id = id
        self.lastHeard = now
        self.peer = peer
        self.outbox = outbox
        self.commandBucket = commandBucket
        self.principal = principal
        self.scope = principal.scope.isUnlimited ? nil : principal.scope
        self.isEcho = isEcho
        self.stream = isEcho ? .none : .awaitingSnapshot(reason: .connect, generation: 0)
        if isEcho { heldReplies = nil }
    }
}
