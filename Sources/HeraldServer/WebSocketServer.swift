import CLibWebSockets
import Dispatch
import Foundation
import HeraldEngine

/// The WebSocket and HTTP server: one libwebsockets context on one service thread.
///
/// Threads: `start`, `stop` and `port` may be called from any thread. Everything else — every
/// property marked "service thread" — is touched only on the service thread, inside callbacks from
/// `lws_service`. The dispatcher reaches this class only through `inbox` (a locked queue plus
/// `lws_cancel_service`).
public final class WebSocketServer: @unchecked Sendable {
    // @unchecked Sendable: mutable state is confined to the service thread (see above); the rest is
    // immutable or guarded by `lifecycle`'s mutex.
    public let configuration: ServerConfiguration
    public let engine: JobDispatcher
    public let logger: Logger
    public let version: String
    let inbox: EventInbox
    let authorizer: Authorizer
    let api: HTTPAPI

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
    /// The dispatcher subscription: set by `start`, read by `stop`, which may run on other threads.
    private let subscription = Protected<Int?>(nil)

    // Service thread only:
    var context: OpaquePointer?
    var connections: [OpaquePointer: Connection] = [:]
    var handshakes: [OpaquePointer: Handshake] = [:]
    var exchanges: [OpaquePointer: HTTPExchange] = [:]
    var metrics = ServerMetrics()
    var nextConnectionID = 1
    var batchBuffer: [UInt8] = []
    var isClosing = false
    let clock = ContinuousClock()
    let startInstant: ContinuousClock.Instant

    /// What the handshake said, kept from the filter callback until the connection is established
    /// (lws frees the headers in between).
    struct Handshake {
        var resume: (epoch: String, since: Int64)?
        var authorized: Bool
        var peer: String
        var echo = false
    }

    public init(configuration: ServerConfiguration, engine: JobDispatcher, logger: Logger, version: String) {
        self.configuration = configuration
        self.engine = engine
        self.logger = logger
        self.version = version
        self.inbox = EventInbox(backlog: engine.deliveryBacklog)
        self.authorizer = Authorizer(token: configuration.controlToken)
        self.api = HTTPAPI(
            engine: engine, files: StaticFiles(root: configuration.publicDirectory), version: version,
            authorizer: authorizer)
        self.startInstant = clock.now
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

    /// Starts the service thread and returns the port it listens on. Thread: any.
    @discardableResult
    public func start() throws -> Int {
        try lifecycle.withLock { state in
            guard case .idle = state else { throw StartError.alreadyStarted }
            state = .starting
        }
        LibWebSocketsLog.route(to: logger)
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
            let id = engine.subscribe { [inbox] event in inbox.push(event) }.1
            subscription.withLock { $0 = id }
            return port
        case .failed(let why): throw StartError.cannotListen(why)
        default: throw StartError.cannotListen("the service thread did not start")
        }
    }

    /// The port the server listens on, once started.
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
    func uptime() -> Double {
        let elapsed = clock.now - startInstant
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    // MARK: - Service thread

    private func serviceThreadMain(started: DispatchSemaphore) {
        let resources = ContextResources(configuration: configuration)
        var info = resources.creationInfo(owner: Unmanaged.passUnretained(self).toOpaque())
        guard let context = lws_create_context(&info) else {
            lifecycle.withLock { $0 = .failed("cannot listen on \(configuration.host):\(configuration.port) (address in use, or not an address of this machine)") }
            resources.release()
            started.signal()
            stoppedSignal.signal()
            return
        }
        self.context = context
        let port = Int(lws_get_vhost_listen_port(lws_get_vhost_by_name(context, "default")))
        inbox.setContext(context)
        lifecycle.withLock { $0 = .running(port: port) }
        started.signal()

        var closingDeadline: Double?
        while true {
            if closingDeadline == nil, isClosing { closingDeadline = uptime() + 2 }
            if let deadline = closingDeadline, connections.isEmpty || uptime() > deadline { break }
            if lws_service(context, 0) < 0 { break }
        }
        inbox.setContext(nil)
        lws_context_destroy(context)
        self.context = nil
        resources.release()
        lifecycle.withLock { $0 = .stopped }
        logger.info("server stopped")
        stoppedSignal.signal()
    }

    /// Dispatches one callback. Thread: the service thread.
    func handle(_ event: ServiceEvent, on wsi: OpaquePointer) -> CallbackAction {
        switch event {
        case .filterConnection: return filterHandshake(wsi)
        case .established: return establish(wsi)
        case .receive(let bytes): return receive(bytes, on: wsi)
        case .writeable: return writeFrames(to: wsi)
        case .peerClose(let code):
            connections[wsi]?.closeCodeFromPeer = code
            return .proceed
        case .closed:
            close(wsi)
            return .proceed
        case .wakeUp:
            drainInbox()
            return .proceed
        case .http(let uri): return beginHTTP(uri: uri, on: wsi)
        case .httpBody(let bytes): return receiveBody(bytes, on: wsi)
        case .httpBodyComplete: return completeBody(on: wsi)
        case .httpWriteable: return writeHTTP(to: wsi)
        case .httpClosed:
            exchanges.removeValue(forKey: wsi)
            return .proceed
        }
    }
}
