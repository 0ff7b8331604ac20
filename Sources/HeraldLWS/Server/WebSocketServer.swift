import Dispatch
import Foundation
import HeraldEngine
import HeraldServer
internal import CLibWebSockets
import HeraldSupport

/// The libwebsockets transport: one context on one service thread, driving a `StreamHub`; with
/// `ioThreads` above 1, this object is thread 0 of several, each such an object (`siblings`).
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
    /// With several service threads (`ioThreads` > 1): the fan-out they share, this one's index, and
    /// (on thread 0, which `start` and `stop` are called on) the others. Set at init, then read only.
    let fanOut: StreamFanOut?
    let threadIndex: Int
    private let siblings: [WebSocketServer]
    /// Where this thread's deliveries go.
    let route: DeliveryRoute

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
    /// The serial of the next connection or exchange (`makeID`).
    var nextSerial = 1
    /// The listening socket this thread accepts on, its socket in the context (adopted as a raw
    /// file), the context's vhost that adopts what it accepts, and whether accepting is paused.
    var listenerDescriptor: Int32?
    var listenerSocket: OpaquePointer?
    var vhost: OpaquePointer?
    var acceptPause = AcceptPause()
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
    /// With `configuration.ioThreads` above 1 it makes the other threads' servers too; `start` and
    /// `stop` then start and stop them all.
    public convenience init(
        configuration: ServerConfiguration, engine: any JobEngine, logger: Logger, version: String, inbox: DeliveryInbox = DeliveryInbox()
    ) {
        let threads = min(max(1, configuration.ioThreads), ServerConfiguration.maxIOThreads)
        let fanOut =
            threads > 1
            ? StreamFanOut(threads: threads, ringBytes: configuration.ringBytes, maxConnections: configuration.maxConnections) : nil
        let siblings = (1..<threads).map { thread in
            WebSocketServer(
                configuration: configuration, engine: engine, logger: logger, version: version, inbox: inbox, fanOut: fanOut,
                thread: thread,
                siblings: [])
        }
        self.init(
            configuration: configuration, engine: engine, logger: logger, version: version, inbox: inbox, fanOut: fanOut, thread: 0,
            siblings: siblings)
    }

    private init(
        configuration: ServerConfiguration, engine: any JobEngine, logger: Logger, version: String, inbox: DeliveryInbox,
        fanOut: StreamFanOut?, thread: Int, siblings: [WebSocketServer]
    ) {
        self.configuration = configuration
        self.engine = engine
        self.logger = logger
        self.inbox = inbox
        self.files = StaticFiles(root: configuration.publicDirectory)
        self.fanOut = fanOut
        self.threadIndex = thread
        self.siblings = siblings
        self.route = DeliveryRoute(inbox: inbox, fanOut: fanOut, thread: thread)
        if let fanOut, thread == 0 { inbox.follow(fanOut) }
        self.hub = StreamHub(
            configuration: configuration, epoch: engine.epoch, logger: logger, version: version, sharing: fanOut?.sharing(thread: thread))
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
        let listeners: ListeningSockets
        do {
            listeners = try ListeningSockets(host: configuration.host, port: configuration.port, count: fanOut?.routing.threads ?? 1)
        } catch {
            lifecycle.withLock { $0 = .failed("\(error)") }
            throw StartError.cannotListen("\(error)")
        }
        let id: Int
        if let fanOut {
            id = engine.subscribe { events in fanOut.post(events: events) }
            engine.onStreamReset { fanOut.resetStream() }
        } else {
            id = engine.subscribe { [inbox] events in inbox.post(events: events) }
            engine.onStreamReset { [inbox] in inbox.resetStream() }
        }
        subscription.withLock { $0 = id }
        var failure = launch(listener: listeners.descriptors[0], port: listeners.port)
        for sibling in siblings where failure == nil {
            sibling.lifecycle.withLock { $0 = .starting }
            failure = sibling.launch(listener: listeners.descriptors[sibling.threadIndex], port: listeners.port)
        }
        // Each thread that started adopted its socket (lws closes it with the context); the rest go.
        for sibling in siblings where sibling.lifecycle.withLock({ if case .running = $0 { false } else { true } }) {
            close(listeners.descriptors[sibling.threadIndex])
        }
        if port == nil { close(listeners.descriptors[0]) }
        guard let failure else { return port! }
        engine.unsubscribe(id)
        // One thread that failed has nothing to stop; of several, those that started are stopped.
        if fanOut != nil { stopThreads() }
        lifecycle.withLock { $0 = .failed(failure) }
        throw StartError.cannotListen(failure)
    }

    /// Starts this thread's service loop and waits until it listens (or failed: the reason).
    private func launch(listener: Int32, port: Int) -> String? {
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            serviceThreadMain(started: started, listener: listener, port: port)
        }
        thread.name = threadIndex == 0 ? "herald.service" : "herald.svc.\(threadIndex)"
        thread.stackSize = 1 << 20
        thread.start()
        started.wait()
        switch lifecycle.withLock({ $0 }) {
        case .running: return nil
        case .failed(let why): return why
        default: return "the service thread did not start"
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
        stopThreads()
    }

    /// Asks every service thread to close its clients with 1001 and stop, and waits for each.
    private func stopThreads() {
        if let fanOut { fanOut.requestStop() } else { inbox.requestStop() }
        // lws_service blocks in poll; keep waking it until the closing handshakes are done.
        let ticker = DispatchSource.makeTimerSource(queue: .global())
        ticker.schedule(deadline: .now() + .milliseconds(20), repeating: .milliseconds(20))
        ticker.setEventHandler { [inbox, fanOut] in
            if let fanOut { for inbox in fanOut.inboxes { inbox.wake() } } else { inbox.wake() }
        }
        ticker.resume()
        for server in [self] + siblings {
            // A thread that never started has nothing to wait for.
            if case .idle = server.lifecycle.withLock({ $0 }) { continue }
            server.stoppedSignal.wait()
            server.stoppedSignal.signal()
        }
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

    private func serviceThreadMain(started: DispatchSemaphore, listener: Int32, port: Int) {
        serviceThread = pthread_self()
        // Set from the thread itself, the name is the kernel's too (`top -H`, /proc/PID/task/*/comm), which
        // takes 15 characters at most.
        Thread.current.name = threadIndex == 0 ? "herald.service" : "herald.svc.\(threadIndex)"
        let resources = ContextResources(configuration: configuration)
        var info = resources.creationInfo(owner: Unmanaged.passUnretained(self).toOpaque())
        // The transport listens (`ListeningSockets`), and the context adopts what it accepts.
        info.port = CONTEXT_PORT_NO_LISTEN_SERVER
        guard let context = lws_create_context(&info) else {
            lifecycle.withLock {
                $0 = .failed("libwebsockets could not set up the server (see its log lines above; a TLS certificate or key it cannot use?)")
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
        let vhost = lws_get_vhost_by_name(context, "default")
        self.vhost = vhost
        var descriptor = lws_sock_file_fd_type()
        descriptor.filefd = listener
        guard let listening = lws_adopt_descriptor_vhost(vhost, LWS_ADOPT_RAW_FILE_DESC, descriptor, ContextResources.protocolName, nil)
        else {
            // A socket nobody accepts on would take its share of the connections and hang them:
            // the server does not start. `start` closes the socket, which lws did not adopt.
            lifecycle.withLock { $0 = .failed("service thread \(threadIndex) could not watch its listening socket") }
            destroy(context, keepalive, resources)
            started.signal()
            stoppedSignal.signal()
            return
        }
        listenerDescriptor = listener
        listenerSocket = listening
        let pointer = ContextPointer(pointer: context)
        // lws_cancel_service is the one lws call other threads make; the inbox calls it under its lock.
        if let fanOut {
            fanOut.inboxes[threadIndex].setWaker { lws_cancel_service(pointer.pointer) }
        } else {
            inbox.setWaker { lws_cancel_service(pointer.pointer) }
        }
        lifecycle.withLock { $0 = .running(port: port) }
        started.signal()

        var closingDeadline: Double?
        while true {
            if closingDeadline == nil, hub.isClosing { closingDeadline = uptime() + 2 }
            if let deadline = closingDeadline, hub.connectionCount == 0 || uptime() > deadline { break }
            if lws_service(context, 0) < 0 { break }
        }
        if let fanOut { fanOut.inboxes[threadIndex].setWaker(nil) } else { inbox.setWaker(nil) }
        destroy(context, keepalive, resources)
        lifecycle.withLock { $0 = .stopped }
        logger.info("server stopped")
        stoppedSignal.signal()
    }

    /// Ends the context (lws closes every socket it holds, the listening one too) and frees what it
    /// used. Thread: the service thread, after its loop or a failed start.
    private func destroy(_ context: OpaquePointer, _ keepalive: KeepaliveTimer, _ resources: ContextResources) {
        keepaliveTimer = nil
        keepalive.release()
        lws_context_destroy(context)
        self.context = nil
        streamProtocol = nil
        resources.release()
    }
}
