import Foundation
import FoundationNetworking
import HeraldEngine
import HeraldSupport

/// POSTs webhook attempts with FoundationNetworking's `URLSession` (libcurl underneath): signed
/// (`WebhookSigner`), JSON, at most `timeout` seconds each (10 in `herald serve`; a test may pass
/// less, down to 1). A redirect is followed only to the same scheme, host and port; one to anywhere else is
/// refused and the attempt fails with its 3xx status, so a receiver cannot bounce the signed body
/// to a third party. No cookies, no cache, no credentials.
///
/// Thread: `send` from any thread; the session calls its delegate and the completions on its own
/// operation queue, never the caller's.
public final class URLSessionWebhookTransport: NSObject, WebhookTransport, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked Sendable: `session` is set once in `init` and URLSession is thread-safe; the class
    // holds no other state.
    private var session: URLSession!
    public let timeout: Double
    /// The User-Agent every attempt carries.
    private let userAgent: String

    /// `timeout` is rounded up to whole seconds, at least 1: swift-corelibs-foundation's URLSession
    /// hands libcurl whole seconds, and reports a timeout under one second at once, before sending.
    public init(timeout: Double = 10, userAgent: String = "herald") {
        self.timeout = max(1, timeout.rounded(.up))
        self.userAgent = userAgent
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.name = "herald.webhooks.http"
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    public func send(_ attempt: WebhookAttempt, done: @escaping @Sendable (WebhookAttemptOutcome) -> Void) {
        guard let url = URL(string: attempt.url) else { return done(.failed("not a URL")) }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = Data(attempt.body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        let timestamp = WallClock.millis() / 1000
        for header in WebhookSigner.headers(id: attempt.id, timestamp: timestamp, body: attempt.body, secret: attempt.secret) {
            request.setValue(header.value, forHTTPHeaderField: header.name)
        }
        let timeout = timeout
        session.dataTask(with: request) { _, response, error in
            if let error {
                done(.failed(Self.describe(error, timeout: timeout)))
            } else if let status = (response as? HTTPURLResponse)?.statusCode {
                done((200..<300).contains(status) ? .delivered(status: status) : .failed("HTTP \(status)"))
            } else {
                done(.failed("no HTTP answer"))
            }
        }.resume()
    }

    /// Follows a redirect only within the same origin (scheme, host, port).
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let from = task.originalRequest?.url
        let to = request.url
        let sameOrigin = from?.scheme == to?.scheme && from?.host == to?.host && from?.port == to?.port
        completionHandler(sameOrigin ? request : nil)
    }

    static func describe(_ error: any Error, timeout: Double) -> String {
        guard let error = error as? URLError else { return "\(error)" }
        switch error.code {
        case .timedOut: return "timed out after \(timeout.formatted()) s"
        case .cannotConnectToHost: return "connection refused"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .networkConnectionLost: return "connection lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot:
            return "TLS failed"
        default: return "network error \(error.code.rawValue)"
        }
    }
}
