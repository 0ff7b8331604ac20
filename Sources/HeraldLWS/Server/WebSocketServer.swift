import Dispatch
import Foundation
import HeraldEngine
import HeraldServer
internal import CLibWebSockets
import HeraldSupport

/// The libwebsockets transport: one context on one service thread, driving a `StreamHub`.
///
/// It is the only code that sees a `wsi`: it turns each callback into a hub call with an integer
/// connection id and performs the hub's actions (writes, closes, HTTP answers, requests for the
/// engine). It never waits on the engine: requests go out with `JobEngine.send`, answers and events
/// come back through `inbox`.
///
/// Threads: `start`, `stop`, `port` and `inbox` may be used from any thread. Everything marked
/// "service thread" is touched only on the service thread, inside callbacks from `lws_service`.
public final class WebSocketServer: @unchecked Sendable {
    // @unchecked Sendable: mutable state is confined to the service thread (see above); the rest is
    // immutable or guarded by `lifecycle`'s mutex.
    public let configuration: ServerConfiguration
    public let engine: any JobEngine
    public let logger: Logger
    /// Where the engine's events and answers wait for the service thread.
    public let inbox: DeliveryInbox
    let files: StaticFiles
    /// Sign-ins' password checks (`HubAction.compute`), one at a time, off the service thread.
    let signInQueue = DispatchQueue(label: "herald.sign-in", qos: .userInitiated)

    /// The server's lifecycle, guarded by a mutex because `start`/`stop` come from other threads.
    enum State {
        case idle
        case starting
        case running(port: Int)
        case stopping
        case stopped
        case failed(String)
    }
    private let lifecycle = Protected(State.idle)
    private let stoppedSignal = DispatchSemaphore(value: 0)
    /// The engine subscription: set by `start`, read by `stop`, which may run on other threads.
    private let subscription = Protected<Int?>(nil)
    /// Monotonic time since the server was made (`uptime`).
    private let clock = SystemClock()

    // Service thread only. The properties every writable callback touches opt out of the run-time
    // exclusivity check (`@exclusivity(unchecked)`): the service thread is the only one that touches
    // them, and never two overlapping accesses (the compiler still checks what it can see). The
    // check costs a call and a thread-local lookup per access, several per write, on the hottest path.
    @exclusivity(unchecked) var hub: StreamHub
    @exclusivity(unchecked) var actions: [HubAction] = []
    var context: OpaquePointer?
    /// The context's one protocol (`ContextResources`), for `lws_callback_on_writable_all_protocol`.
    var streamProtocol: UnsafePointer<lws_protocols>?
    /// Sockets by connection id (the id itself rides on the socket: `connectionID(of:)`), and HTTP
    /// exchanges by socket.
    @exclusivity(unchecked) var sockets: [ConnectionID: OpaquePointer] = [:]
    /// The WebSockets among them, in descriptor order (a delivery's pass of writes goes through them).
    @exclusivity(unchecked) var streamSockets = StreamSockets()
    var exchanges: [OpaquePointer: HTTPExchange] = [:]
    var nextID: ConnectionID = 1
    @exclusivity(unchecked) var batchBuffer: [UInt8] = []
    /// When `drainInbox` last took a slice (monotonic clock, microseconds): whether the stream paused.
    @exclusivity(unchecked) var lastSliceMicros: Int64 = 0
    /// Writes the hub's batches; pauses a connection's reading while part of a write waits.
    @exclusivity(unchecked) var writer = BatchWriter()
    /// Fires the hub's keepalive sweep once a second while the context lives.
    var keepaliveTimer: KeepaliveTimer?
    /// The service thread, as it began: debug builds check that the hub is driven from it alone.
    var serviceThread: pthread_t?

    /// `inbox` may be made first by a caller that paces a producer by it (`herald serve --bench`).
    public init(
        configuration: ServerConfiguration, engine: any JobEngine, logger: Logger, version: String, inbox: DeliveryInbox = DeliveryInbox()
    ) {
        self.configuration = configuration
        self.engine = engine
        self.logger = logger
        self.inbox = inbox
        self.files = StaticFiles(root: configuration.publicDirectory)
        self.hub = StreamHub(configuration: configuration, epoch: engine.epoch, logger: logger, version: version)
    }

    public enum StartError: Error, CustomStringConvertible {
        case alreadyStarted
        case cannotListen(String)
        public var description: String {
            switch self {
            case .alreadyStarted: return "the server was already started"
            case .cannotListen(let why): return why
            }
        }
    }

    /// Subscribes to the engine, then starts the service thread and returns the port it listens on.
    /// Subscribing first means no client can connect before events flow to the inbox. Thread: any.
    @discardableResult
    public func start() throws -> Int {
        try lifecycle.withLock { state in
            guard case .idle = state else { throw StartError.alreadyStarted }
            state = .starting
        }
        LibWebSocketsLog.route(to: logger)
        let id = engine.subscribe { [inbox] events in inbox.post(events: events) }
        engine.onStreamReset { [inbox] in inbox.resetStream() }
        subscription.withLock { $0 = id }
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            serviceThreadMain(started: started)
        }
        thread.name = "herald.service"
        thread.stackSize = 1 << 20
        thread.start()
        started.wait()
        switch lifecycle.withLock({ $0 }) {
        case .running(let port):
            return port
        case .failed(let why):
            engine.unsubscribe(id)
            throw StartError.cannotListen(why)
        default:
            engine.unsubscribe(id)
            throw StartError.cannotListen("the service thread did not start")
        }
    }

    /// The port the server listens on, once started. Thread: any.
    public var port: Int? {
        if case .running(let port) = lifecycle.withLock({ $0 }) { return port }
        return nil
    }

    /// Closes every client with 1001, stops the service thread and waits for it. Idempotent.
    /// Thread: any but the service thread.
    public func stop() {
        let mustWait: Bool = lifecycle.withLock { state in
            switch state {
            case .running:
                state = .stopping
                return true
            case .stopping: return true
            default: return false
            }
        }
        guard mustWait else { return }
        if let id = subscription.withLock({ $0 }) { engine.unsubscribe(id) }
        inbox.requestStop()
        // lws_service blocks in poll; keep waking it until the closing handshakes are done.
        let ticker = DispatchSource.makeTimerSource(queue: .global())
        ticker.schedule(deadline: .now() + .milliseconds(20), repeating: .milliseconds(20))
        ticker.setEventHandler { [inbox] in inbox.wake() }
        ticker.resume()
        stoppedSignal.wait()
        stoppedSignal.signal()
        ticker.cancel()
    }

    /// Seconds since start, monotonic. Thread: any.
    func uptime() -> Double { clock.now() }

    // MARK: - Service thread

    /// In debug builds, stops the process when called off the service thread: the hub and every
    /// property marked "service thread" have no lock, so a call from elsewhere would be a race.
    @inline(__always)
    func assertOnServiceThread(file: StaticString = #fileID, line: UInt = #line) {
        assert(serviceThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false, "off the service thread", file: file, line: line)
    }

    private func serviceThreadMain(started: DispatchSemaphore) {
        serviceThread = pthread_self()
        let resources = ContextResources(configuration: configuration)
        var info = resources.creationInfo(owner: Unmanaged.passUnretained(self).toOpaque())
        guard let context = lws_create_context(&info) else {
            lifecycle.withLock {
                $0 = .failed(
                    "cannot listen on \(configuration.host):\(configuration.port) (address in use, or not an address of this machine)")
            }
            resources.release()
            started.signal()
            stoppedSignal.signal()
            return
        }
        self.context = context
        streamProtocol = UnsafePointer(resources.protocols)
        let keepalive = KeepaliveTimer(owner: Unmanaged.passUnretained(self).toOpaque())
        keepalive.schedule(on: context, after: StreamHub.keepaliveSweepSeconds)
        keepaliveTimer = keepalive
        let port = Int(lws_get_vhost_listen_port(lws_get_vhost_by_name(context, "default")))
        let pointer = ContextPointer(pointer: context)
        // lws_cancel_service is the one lws call other threads make; the inbox calls it under its lock.
        inbox.setWaker { lws_cancel_service(pointer.pointer) }
        lifecycle.withLock { $0 = .running(port: port) }
        started.signal()

        var closingDeadline: Double?
        while true {
            if closingDeadline == nil, hub.isClosing { closingDeadline = uptime() + 2 }
            if let deadline = closingDeadline, hub.connectionCount == 0 || uptime() > deadline { break }
            if lws_service(context, 0) < 0 { break }
        }
        inbox.setWaker(nil)
        keepaliveTimer = nil
        keepalive.release()
        lws_context_destroy(context)
        self.context = nil
        streamProtocol = nil
        resources.release()
        lifecycle.withLock { $0 = .stopped }
        logger.info("server stopped")
        stoppedSignal.signal()
    }
}
