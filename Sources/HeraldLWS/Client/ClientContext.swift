import HeraldEngine
internal import CLibWebSockets
import Dispatch
import Foundation

/// A libwebsockets client context on its own service thread, hosting any number of connections
/// (one for `herald watch`, a thousand for a test). This is the public handle; the service thread holds
/// only the `ClientService` inside, so dropping the last reference here shuts the context down and frees
/// it, as `shutdown()` would. Thread: any.
public final class ClientContext: Sendable {
    private let service: ClientService
    /// How `wss://` connections are checked; nil: this context speaks plain `ws://` only.
    public let tls: ClientTLS?

    /// - Parameter tls: set it for `wss://` URLs; an unreadable or empty CA file throws here, a `.tls`
    ///   failure. Without it lws's OpenSSL setup is skipped, on purpose: in 4.1.6 creating any TLS
    ///   context (client or server) re-registers process-wide OpenSSL ex-data indices
    ///   (lws_context_init_ssl_library), so a handshake in flight on another context can then fail its
    ///   certificate check, and a context destroyed after a newer one was created leaks its SSL_CTX.
    ///   Plain contexts (tests, benchmarks, a thousand clients) stay out of that; make TLS contexts up
    ///   front, one at a time (the CLI has one per process, a test one after its server).
    public init(tls: ClientTLS? = nil) throws {
        try tls?.validate()
        LibWebSocketsLog.quietIfUnrouted()
        self.tls = tls
        service = try ClientService.start(tls: tls)
    }

    /// Runs on whichever thread lets go last; never the service thread, which holds no `ClientContext`.
    deinit {
        service.shutdown()
    }

    /// Closes every connection and stops the service thread. Idempotent. Thread: any but its own.
    public func shutdown() {
        service.shutdown()
    }

    func submit(_ request: ClientService.Request) {
        service.submit(request)
    }
}

/// The service thread's side of a `ClientContext`: the lws context, its connections and the request
/// queue. The service thread holds it strongly until it ends; lws holds it unretained (the context's
/// user pointer), for callbacks on that thread. Threads: `submit` and `shutdown` from any thread; the
/// methods the callback calls run on the service thread. Requests cross by a locked queue and
/// `lws_cancel_service`, the only lws call made off the service thread.
final class ClientService: @unchecked Sendable {
    // @unchecked Sendable: `connections` and `context` are service-thread only; `shared` is behind its mutex.
    enum Request {
        case connect(ClientConnection)
        case send(ClientConnection, [UInt8])
        case close(ClientConnection)
    }

    private struct Shared {
        var requests: [Request] = []
        var context: ContextPointer?
        var stopping = false
    }

    /// Any thread, behind its mutex.
    private let shared = Protected(Shared())
    /// Signalled by the service thread once its context is destroyed; waited for by `shutdown`.
    private let stopped = DispatchSemaphore(value: 0)
    /// Read by lws on the service thread; freed with `self`, after the thread let go of it.
    private let protocols = ClientProtocols()
    private let tls: ClientTLS?
    /// `tls`'s CA file as a C string for `lws_create_context`; freed by `deinit`, like `protocols`.
    private let caFilePath: UnsafeMutablePointer<CChar>?
    // Service thread only:
    private var connections: [ObjectIdentifier: ClientConnection] = [:]
    private var context: OpaquePointer?

    private init(tls: ClientTLS?) {
        self.tls = tls
        if case .caFile(let path) = tls { caFilePath = strdup(path) } else { caFilePath = nil }
    }

    deinit {
        free(caFilePath)
    }

    /// Starts a service thread and waits until its lws context exists. If lws cannot make one, the
    /// thread ends at once and the service (with its protocols) is freed when it lets go.
    static func start(tls: ClientTLS?) throws -> ClientService {
        let service = ClientService(tls: tls)
        let ready = DispatchSemaphore(value: 0)
        let created = Protected<Result<Void, WebSocketClient.Failure>>(.success(()))
        let thread = Thread {
            // Set here, on the thread itself: set before `start()`, Linux Foundation does not name the thread.
            Thread.current.name = "herald.client"
            service.run { result in
                created.withLock { $0 = result }
                ready.signal()
            }
        }
        thread.start()
        ready.wait()
        try created.withLock { $0 }.get()
        return service
    }

    /// The service thread's whole life: creates the context, reports, serves until `shutdown`, destroys.
    private func run(reportCreated: (Result<Void, WebSocketClient.Failure>) -> Void) {
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols.array)
        info.gid = -1
        info.uid = -1
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.fd_limit_per_thread = 12_000
        if tls != nil {
            // The context's client SSL_CTX is made now: OpenSSL's CAs, or (like curl --cacert) only the file's.
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
        }
        if let caFilePath {
            info.client_ssl_ca_filepath = UnsafePointer(caFilePath)
            info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS)
        }
        let created: OpaquePointer
        do {
            created = try LWSResult.nonNull(lws_create_context(&info), "cannot create a libwebsockets client context")
        } catch {
            shared.withLock { $0.stopping = true }
            reportCreated(.failure(error))
            return
        }
        context = created
        shared.withLock { $0.context = ContextPointer(pointer: created) }
        reportCreated(.success(()))
        do {
            while !shared.withLock({ $0.stopping }) {
                try LWSResult.nonNegative(lws_service(created, 0), "lws_service failed")
            }
        } catch {
            // lws cannot serve this context any more: destroy it, which ends its connections.
        }
        shared.withLock { $0.context = nil }
        lws_context_destroy(created)
        context = nil
        stopped.signal()
    }

    /// Closes every connection and stops the service thread. Idempotent. Thread: any but its own.
    func shutdown() {
        let wasRunning = shared.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.stopping = true
            if let context = state.context { lws_cancel_service(context.pointer) }
            return true
        }
        if wasRunning {
            stopped.wait()
        }
    }

    func submit(_ request: Request) {
        shared.withLock { state in
            state.requests.append(request)
            if let context = state.context { lws_cancel_service(context.pointer) }
        }
    }

    // MARK: Service thread

    func processRequests() {
        let requests = shared.withLock { state -> [Request] in
            defer { state.requests.removeAll() }
            return state.requests
        }
        for request in requests {
            switch request {
            case .connect(let connection): open(connection)
            case .send(let connection, let bytes):
                guard !connection.hasEnded else { continue }
                connection.outgoing.append(bytes)
                if connection.isOpen, let wsi = connection.wsi { lws_callback_on_writable(wsi) }
            case .close(let connection):
                guard !connection.hasEnded else { continue }
                connection.wantsClose = true
                if let wsi = connection.wsi { lws_callback_on_writable(wsi) }
            }
        }
    }

    private func open(_ connection: ClientConnection) {
        guard let context else { return }
        connections[ObjectIdentifier(connection)] = connection
        var info = lws_client_connect_info()
        info.context = context
        info.address = UnsafePointer(connection.address)
        info.port = Int32(connection.url.port)
        info.path = UnsafePointer(connection.path)
        info.host = UnsafePointer(connection.hostHeader)
        info.origin = connection.origin.map { UnsafePointer($0) }
        info.ietf_version_or_minus_one = -1
        info.local_protocol_name = UnsafePointer(protocols.name)
        info.opaque_user_data = Unmanaged.passUnretained(connection).toOpaque()
        if connection.url.isSecure {
            // The certificate must chain to a trusted CA and name `address` (lws takes the host from
            // `host` without its port): none of the ALLOW_* or SKIP_*_HOSTNAME_CHECK flags, ever.
            info.ssl_connection = Int32(LCCSCF_USE_SSL.rawValue)
        }
        do {
            _ = try LWSResult.nonNull(lws_client_connect_via_info(&info), "cannot connect to \(connection.url)")
        } catch {
            if !connection.hasEnded { ended(connection, wsi: nil, code: nil, reason: error.description) }
        }
    }

    func established(_ connection: ClientConnection, wsi: OpaquePointer) -> Int32 {
        connection.wsi = wsi
        connection.isOpen = true
        connection.mailbox.post(.open)
        if !connection.outgoing.isEmpty || connection.wantsClose { lws_callback_on_writable(wsi) }
        return 0
    }

    func received(_ bytes: UnsafeRawBufferPointer, on connection: ClientConnection, wsi: OpaquePointer) -> Int32 {
        connection.inbound.append(contentsOf: bytes)
        if lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 {
            connection.mailbox.post(.message(String(decoding: connection.inbound, as: UTF8.self)))
            connection.inbound.removeAll(keepingCapacity: true)
        }
        return 0
    }

    func writeable(_ connection: ClientConnection, wsi: OpaquePointer) -> Int32 {
        // A close goes out after what was sent before it (a worker's last reports, then goodbye).
        if connection.wantsClose, connection.outgoing.isEmpty {
            lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, nil, 0)
            return -1
        }
        guard !connection.outgoing.isEmpty else { return 0 }
        let payload = connection.outgoing.removeFirst()
        let pre = herald_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + payload.count)
        buffer.replaceSubrange(pre..<buffer.count, with: payload)
        let written = buffer.withUnsafeMutableBufferPointer { raw in
            lws_write(wsi, raw.baseAddress! + pre, payload.count, LWS_WRITE_TEXT)
        }
        return LWSResult.callbackStatus {
            try LWSResult.nonNegative(written, "cannot write to \(connection.url)")
            if !connection.outgoing.isEmpty || connection.wantsClose { lws_callback_on_writable(wsi) }
        }
    }

    /// OpenSSL refused a certificate the server sent (called once per certificate in its chain,
    /// before the handshake fails); the first reason is kept for the error.
    func certificateRefused(_ connection: ClientConnection, reason: String) {
        if connection.certificateProblem == nil { connection.certificateProblem = reason }
    }

    /// The connection could not be made: lws's `error`, told apart as TLS or not, ends it.
    func failed(_ connection: ClientConnection, wsi: OpaquePointer?, error: String) {
        let reason: String
        if let problem = connection.certificateProblem {
            connection.failureKind = .tls
            reason = "the server's TLS certificate was refused (\(problem))"
        } else if connection.url.isSecure, error.hasPrefix("server's cert didn't look good") {
            connection.failureKind = .tls
            reason = "the server's TLS certificate was refused (\(error.trimmingCharacters(in: .whitespacesAndNewlines)))"
        } else if connection.url.isSecure, Self.tlsHandshakeErrorPrefixes.contains(where: error.hasPrefix) {
            // Not a certificate: a server that does not speak TLS on this port, or one that went away
            // mid-handshake (restarting), which the next attempt may get past. lws cannot tell which
            // (its "connect SSL err 1: error:00000001…" text names SSL_ERROR_SSL, not OpenSSL's reason).
            reason = "TLS handshake failed (does the server serve https and wss on this port?)"
        } else if error.hasPrefix("HS: ws upgrade unauthorized") {
            // lws's words for a 401 answer to the handshake: the credentials, not the network.
            connection.failureKind = .unauthorized
            reason = "the server refused the connection's credentials (HTTP 401)"
        } else {
            reason = error
        }
        ended(connection, wsi: wsi, code: nil, reason: reason)
    }

    /// How lws 4.1.6 words a failed TLS handshake (lws_tls_client_connect in openssl-client.c).
    private static let tlsHandshakeErrorPrefixes = ["connect SSL err", "connect SYSCALL", "connect unk"]

    /// The connection is over. `wsi` (when there is one) is detached from the Swift object first:
    /// lws may still call back for it (WSI_DESTROY…) after the object is gone.
    func ended(_ connection: ClientConnection, wsi: OpaquePointer?, code: UInt16?, reason: String) {
        if let wsi { lws_set_opaque_user_data(wsi, nil) }
        guard !connection.hasEnded else { return }
        connection.hasEnded = true
        connection.isOpen = false
        connection.wsi = nil
        connection.mailbox.post(.closed(code: code, reason: reason))
        // lws calls no more for this wsi; the callback's own reference keeps the object alive
        // until it returns, and the `WebSocketClient` keeps it after that.
        connections.removeValue(forKey: ObjectIdentifier(connection))
    }
}

/// The protocols array and its name: lws keeps raw pointers into both for the context's whole life.
/// Freed exactly once, by `deinit`, with the `ClientService` that owns it: after its service thread has
/// ended, whether `lws_create_context` succeeded or not. Thread: written in `init`, then only read, by
/// the service thread.
final class ClientProtocols {
    let name: UnsafeMutablePointer<CChar>
    let array: UnsafeMutablePointer<lws_protocols>

    init() {
        name = strdup("herald-client")
        array = .allocate(capacity: 2)
        array.initialize(repeating: lws_protocols(), count: 2)
        array[0].name = UnsafePointer(name)
        array[0].callback = heraldClientCallback
        array[0].rx_buffer_size = 64 * 1024
    }

    deinit {
        free(name)
        array.deinitialize(count: 2)
        array.deallocate()
    }
}
