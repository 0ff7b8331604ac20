import HeraldEngine
internal import CLibWebSockets
import Foundation

/// One client connection's state inside a `ClientContext`.
/// Thread: every `var` is touched only on the context's service thread; `mailbox` and `failure` are
/// thread-safe.
final class ClientConnection: @unchecked Sendable {
    // @unchecked Sendable: mutable members are confined to the owning context's service thread.
    let url: WebSocketURL
    let mailbox = ClientMailbox()
    let extraHeaders: [(String, String)]
    /// C strings lws reads during connect; freed when the connection ends.
    let address: UnsafeMutablePointer<CChar>
    let path: UnsafeMutablePointer<CChar>
    let hostHeader: UnsafeMutablePointer<CChar>
    let origin: UnsafeMutablePointer<CChar>?
    var wsi: OpaquePointer?
    var outgoing: [[UInt8]] = []
    var inbound: [UInt8] = []
    var wantsClose = false
    var isOpen = false
    var hasEnded = false
    var peerCloseCode: UInt16?
    var peerCloseReason: String?
    /// OpenSSL's reason for refusing the server's certificate, when it did.
    var certificateProblem: String?
    /// What kind of failure ended the connection before it opened: written on the service thread
    /// before `.closed` is posted, read by `WebSocketClient.connect` after it.
    private let failure = Protected(WebSocketClient.Failure.Kind.connection)
    var failureKind: WebSocketClient.Failure.Kind {
        get { failure.withLock { $0 } }
        set { failure.withLock { $0 = newValue } }
    }

    init(url: WebSocketURL, origin: String?, headers: [(String, String)]) {
        self.url = url
        self.extraHeaders = headers
        address = strdup(url.host)
        path = strdup(url.path)
        hostHeader = strdup("\(url.host):\(url.port)")
        // lws writes "Origin: http://<origin>" itself, so it takes the origin without its scheme.
        self.origin = origin.map { strdup($0.hasPrefix("http://") ? String($0.dropFirst(7)) : $0) }
    }

    deinit {
        free(address)
        free(path)
        free(hostHeader)
        free(origin)
    }

    /// Adds our headers (Authorization) to the handshake. Thread: the service thread.
    func appendHeaders(wsi: OpaquePointer, cursor: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, end: UnsafeMutablePointer<UInt8>?)
        -> Int32
    {
        guard let end else { return 0 }
        return LWSResult.callbackStatus {
            for (name, value) in extraHeaders {
                try LWSResult.zero(
                    lws_add_http_header_by_name(wsi, name, value, Int32(value.utf8.count), cursor, end), "no room for the \(name) header")
            }
        }
    }
}
