import HeraldServer

/// Where libwebsockets' integer results become Swift outcomes: negative means the connection is
/// broken and must close. One place, so every call site reads the same way and logs the same way.
/// Thread: any (pure, plus a log line).
enum LWSResult {
    /// True for a result of 0 or more; false (with a debug line naming the call) for a failure.
    static func succeeded(_ result: Int32, _ call: @autoclosure () -> String, logger: Logger?) -> Bool {
        guard result < 0 else { return true }
        logger?.debug("\(call()) failed (\(result)); closing the connection")
        return false
    }
}
