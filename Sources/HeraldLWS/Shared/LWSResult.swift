import HeraldSupport

/// The one place the client and the server read libwebsockets' C return codes: each checked lws call goes through
/// here and fails as a `WebSocketClient.Failure` saying what could not be done; `callbackStatus` turns
/// such a failure back into what a callback returns. Thread: any (no state).
enum LWSResult {
    /// For calls where NULL is failure: `lws_create_context`, `lws_client_connect_via_info`.
    static func nonNull<Pointer>(_ pointer: Pointer?, _ what: @autoclosure () -> String) throws(WebSocketClient.Failure) -> Pointer {
        guard let pointer else { throw WebSocketClient.Failure(description: what()) }
        return pointer
    }

    /// For calls where a negative number is failure: `lws_write`, `lws_service`.
    static func nonNegative(_ code: Int32, _ what: @autoclosure () -> String) throws(WebSocketClient.Failure) {
        if code < 0 { throw WebSocketClient.Failure(description: what()) }
    }

    /// For calls where anything but 0 is failure: `lws_add_http_header_by_name`.
    static func zero(_ code: Int32, _ what: @autoclosure () -> String) throws(WebSocketClient.Failure) {
        if code != 0 { throw WebSocketClient.Failure(description: what()) }
    }

    /// A callback's answer: 0 to carry on, -1 (lws closes the connection) when `body` failed.
    static func callbackStatus(_ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch {
            return -1
        }
    }

    /// For the server's calls where a negative number is failure: true when it succeeded; false, with
    /// a debug line naming the call, when the connection must close.
    static func succeeded(_ code: Int32, _ what: @autoclosure () -> String, logger: (any LogSink)?) -> Bool {
        do throws(WebSocketClient.Failure) {
            try nonNegative(code, what())
            return true
        } catch {
            logger?.debug("\(error.description) failed (\(code)); closing the connection")
            return false
        }
    }
}
