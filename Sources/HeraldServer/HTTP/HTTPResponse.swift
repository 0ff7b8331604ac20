import HeraldEngine

/// An HTTP response to write: status, content type, extra headers, and the whole body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, contentType: String, headers: [(String, String)] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    public static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        var body = JSONWriter.encode(value)
        body.append(UInt8(ascii: "\n"))
        return HTTPResponse(status: status, contentType: "application/json", body: body)
    }

    /// `{"code":…,"message":…}` with the status that fits the code.
    /// A 401 says how to authenticate (RFC 6750): a bearer token.
    public static func error(_ error: EngineError) -> HTTPResponse {
        var response = json(["code": .string(error.code.rawValue), "message": .string(error.message)], status: error.code.httpStatus)
        if error.code == .unauthorized { response.headers.append(("www-authenticate:", "Bearer realm=\"herald\"")) }
        return response
    }

    /// 302 to another page of this server.
    public static func redirect(to path: String) -> HTTPResponse {
        var response = text("See \(path)\n", status: 302)
        response.headers.append(("location:", path))
        return response
    }

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }

    /// Sent with every response: the dashboard runs under this policy, so no inline script or style.
    public static let securityHeaders: [(String, String)] = [
        (
            "content-security-policy:",
            "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
        ),
        ("x-content-type-options:", "nosniff"),
        ("referrer-policy:", "no-referrer"),
        ("x-frame-options:", "DENY"),
        ("cache-control:", "no-cache"),
    ]
}
