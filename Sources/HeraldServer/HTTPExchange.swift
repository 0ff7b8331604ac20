/// One HTTP request and its response in flight. Thread: the service thread only.
final class HTTPExchange {
    var request: HTTPRequest
    var response: HTTPResponse?
    var headersSent = false
    var bodyOffset = 0
    /// Over the body limit: the response is a 413 and the connection closes after it.
    var closeAfterResponse = false

    init(request: HTTPRequest) { self.request = request }
}
