import Foundation

/// A WebSocket client over libwebsockets, for the command line, the tests and the benchmarks.
/// Thread: any; each call is a message to the context's service thread or a read of the mailbox.
public final class WebSocketClient: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// Refused, reset, no answer, a lost connection: the next attempt may work.
            case connection
            /// TLS could not be set up: an unusable CA file, a failed handshake, or a server certificate
            /// that is not trusted or names another host. Trying again does not help.
            case tls
            /// The server wants other credentials (401 at the handshake): trying again with the same
            /// ones does not help.
            case unauthorized
        }

        public let description: String
        public let kind: Kind

        public init(description: String, kind: Kind = .connection) {
            self.description = description
            self.kind = kind
        }
    }

    public let url: WebSocketURL
    private let connection: ClientConnection
    /// Shared, or this client's own: then it shuts down when the client is released.
    private let context: ClientContext

    /// - Parameters:
    ///   - origin: an `Origin` header to send, as a browser would; none by default, like CLI tools.
    ///   - token: sent as `Authorization: Bearer …` in the handshake.
    ///   - context: share one service thread among many clients; by default the client has its own,
    ///     stopped when the client is released (for a `wss://` URL, one trusting the system's CAs).
    ///     A `wss://` URL needs a context made with `tls`.
    public init(url: WebSocketURL, origin: String? = nil, token: String? = nil, context: ClientContext? = nil) throws {
        self.url = url
        var headers: [(String, String)] = []
        if let token { headers.append(("authorization:", "Bearer \(token)")) }
        self.connection = ClientConnection(url: url, origin: origin, headers: headers)
        let context = try context ?? ClientContext(tls: url.isSecure ? .systemTrust : nil)
        if url.isSecure, context.tls == nil {
            throw Failure(description: "cannot connect to \(url): its ClientContext was made without TLS", kind: .tls)
        }
        self.context = context
    }

    /// Opens the connection and waits until the handshake is done.
    public func connect(timeout: Double = 5) throws {
        context.submit(.connect(connection))
        switch connection.mailbox.next(timeout: timeout) {
        case .open?: return
        case .closed(_, let reason)?: throw Failure(description: "cannot connect to \(url): \(reason)", kind: connection.failureKind)
        case .message?, nil: throw Failure(description: "no answer from \(url) within \(timeout) s")
        }
    }

    /// Starts connecting without waiting; `.open` or `.closed` arrives through `next`.
    public func connectInBackground() {
        context.submit(.connect(connection))
    }

    public func send(_ text: String) {
        context.submit(.send(connection, Array(text.utf8)))
    }

    /// Sends raw bytes as one text message (tests use it for invalid UTF-8).
    public func send(bytes: [UInt8]) {
        context.submit(.send(connection, bytes))
    }

    /// The next event, or nil after `timeout` seconds without one.
    public func next(timeout: Double) -> ClientEvent? {
        connection.mailbox.next(timeout: timeout)
    }

    /// Closes with 1000. The `.closed` event follows.
    public func close() {
        context.submit(.close(connection))
    }
}
