/// Where a line of the process's log goes. The server's `Logger` (HeraldServer) is one; code that
/// must not depend on the server, such as the libwebsockets client and lws's own messages
/// (HeraldLWS), takes any sink. Thread: any.
public protocol LogSink: Sendable {
    /// Lines above this level are left out.
    var level: LogLevel { get }
    func log(_ level: LogLevel, _ message: @autoclosure () -> String)
}

extension LogSink {
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
