import HeraldServer
internal import CLibWebSockets
import Foundation

/// Memory libwebsockets keeps raw pointers into for the context's whole life: the protocols array,
/// names, the interface string and the (empty) retry and idle policy. Allocated before `lws_create_context`,
/// released after `lws_context_destroy`. Thread: the service thread.
final class ContextResources {
    static let protocolName = "herald.v1"
    let protocols: UnsafeMutablePointer<lws_protocols>
    let name: UnsafeMutablePointer<CChar>
    let interface: UnsafeMutablePointer<CChar>
    let policy: UnsafeMutablePointer<lws_retry_bo_t>
    let certificate: UnsafeMutablePointer<CChar>?
    let key: UnsafeMutablePointer<CChar>?
    let configuration: ServerConfiguration
    private var released = false

    init(configuration: ServerConfiguration) {
        self.configuration = configuration
        name = strdup(Self.protocolName)
        interface = strdup(configuration.host)
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(name)
        protocols[0].callback = heraldServerCallback
        protocols[0].per_session_data_size = 0
        // Each WebSocket gets a receive buffer of this size for its whole life; a message longer than
        // it arrives in pieces, which the hub joins (`--max-message-bytes`). Commands are small: with
        // 16 KiB an idle connection cost about 1 KB more of the server's memory (docs/benchmarks.md).
        protocols[0].rx_buffer_size = 4 * 1024
        // Lets one write carry a whole batch of frames; without it lws splits sends at rx_buffer_size.
        protocols[0].tx_packet_size = configuration.writeBatchBytes + 1024
        // All zero: no validity timers (see creationInfo).
        policy = .allocate(capacity: 1)
        policy.initialize(to: lws_retry_bo_t())
        certificate = configuration.tlsCertificatePath.map { strdup($0) }
        key = configuration.tlsKeyPath.map { strdup($0) }
    }

    func creationInfo(owner: UnsafeMutableRawPointer) -> lws_context_creation_info {
        var info = lws_context_creation_info()
        info.port = Int32(configuration.port)
        info.iface = UnsafePointer(interface)
        info.protocols = UnsafePointer(protocols)
        info.user = owner
        info.gid = -1
        info.uid = -1
        // The hub does the keepalive (StreamHub+Keepalive.swift): lws 4.1 keeps a validity timer per
        // connection in one sorted list and re-inserts it, walking the list, as traffic confirms the
        // connection. Without a policy lws applies its own (ping after 300 s, hang up at 310 s), timers
        // and all; a policy whose hang-up time is zero is the one way to have none.
        info.retry_and_idle_policy = UnsafePointer(policy)
        info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8) | UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
        if let certificate, let key {
            info.ssl_cert_filepath = UnsafePointer(certificate)
            info.ssl_private_key_filepath = UnsafePointer(key)
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
        }
        // Room for the connection limit plus HTTP requests and the listening socket. lws also takes
        // this times its threads (one) as the highest descriptor number it tracks, when below the
        // process's limit: the whole process's descriptors count there, so it has the same reserve
        // as the limit `herald serve` asks for (`OpenFilesLimit`).
        info.fd_limit_per_thread = UInt32(configuration.maxConnections + OpenFilesLimit.reserve)
        info.timeout_secs = 20
        // Room for a bearer JWT of up to 8 KiB (AccessControl.maxTokenBytes) beside the other headers:
        // lws's default of 4 KiB for all of a request's headers cuts a large but valid token off.
        info.max_http_header_data = 16 * 1024
        info.keepalive_timeout = 30
        return info
    }

    func release() {
        guard !released else { return }
        released = true
        free(name)
        free(interface)
        free(certificate)
        free(key)
        protocols.deinitialize(count: 2)
        protocols.deallocate()
        policy.deinitialize(count: 1)
        policy.deallocate()
    }

    deinit { assert(released, "ContextResources released before the context was destroyed") }
}
