import HeraldEngine
import CLibWebSockets
import Dispatch
import Foundation
import Synchronization

/// A libwebsockets client context on its own service thread, hosting any number of connections
/// (one for `herald watch`, a thousand for a test). Threads: `submit` and `shutdown` from any thread;
/// the methods the callback calls run on the service thread. Requests cross by a locked queue and
/// `lws_cancel_service`, the only lws call made off the service thread.
public final class ClientContext: @unchecked Sendable {
    // @unchecked Sendable: `connections`, `context`'s use and the loop flag are service-thread only;
    // `requests` is behind a mutex.
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

    private let shared = Protected(Shared())
    private let stopped = DispatchSemaphore(value: 0)
    private let protocols = ClientProtocols()
    // Service thread only:
    private var connections: [ObjectIdentifier: ClientConnection] = [:]
    private var context: OpaquePointer?

    public init() throws {
        LibWebSocketsLog.quietIfUnrouted()
        let ready = DispatchSemaphore(value: 0)
        let failed = Protected(false)
        let thread = Thread { [self] in
            var info = lws_context_creation_info()
            info.port = CONTEXT_PORT_NO_LISTEN
            info.protocols = UnsafePointer(protocols.array)
            info.gid = -1
            info.uid = -1
            info.user = Unmanaged.passUnretained(self).toOpaque()
            info.fd_limit_per_thread = 12_000
            guard let created = lws_create_context(&info) else {
                failed.withLock { $0 = true }
                ready.signal()
                stopped.signal()
                return
            }
            context = created
            shared.withLock { $0.context = ContextPointer(pointer: created) }
            ready.signal()
            while !shared.withLock({ $0.stopping }) {
                if lws_service(created, 0) < 0 { break }
            }
            shared.withLock { $0.context = nil }
            lws_context_destroy(created)
            context = nil
            stopped.signal()
        }
        thread.name = "herald.client"
        thread.start()
        ready.wait()
        if failed.withLock({ $0 }) {
            // `deinit` still runs (every property is set); `protocols` frees itself once, with `self`.
            throw WebSocketClient.Failure(description: "cannot create a libwebsockets client context")
        }
    }

    deinit {
        shutdown()
    }

    /// Closes every connection and stops the service thread. Idempotent. Thread: any but its own.
    public func shutdown() {
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
        info.pwsi = UnsafeMutablePointer(connection.wsiSlot)
        info.opaque_user_data = Unmanaged.passUnretained(connection).toOpaque()
        if lws_client_connect_via_info(&info) == nil, !connection.hasEnded {
            ended(connection, wsi: nil, code: nil, reason: "cannot connect to \(connection.url)")
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
        if connection.wantsClose {
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
        if written < 0 { return -1 }
        if !connection.outgoing.isEmpty { lws_callback_on_writable(wsi) }
        return 0
    }

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
/// Freed exactly once, by `deinit`, when the owning context goes (after `lws_context_destroy`, or after
/// `lws_create_context` failed). Thread: written in `init`, then only read, by the service thread.
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
