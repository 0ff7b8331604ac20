import HeraldServer

/// One HTTP request and its response in flight on one socket. Thread: the service thread only.
final class HTTPExchange {
    /// The hub's id for this request; a keep-alive socket gets a new one per request.
    let id: ConnectionID
    var request: HTTPRequest
    /// Set once the request was handed to the hub (or refused): later body bytes are ignored.
    var isComplete = false
    var response: HTTPResponse?
    var headersSent = false
    var bodyOffset = 0
    /// Over the body limit: the response is a 413 and the connection closes after it.
    var closeAfterResponse = false

    init(id: ConnectionID, request: HTTPRequest) {
        self.id = id
        self.request = request
    }
}
