import HeraldLWS
import HeraldTestSupport
import XCTest

/// The URLs `herald watch`, `start` and the tests take: ws/wss and the server's own http/https address.
final class WebSocketURLTests: XCTestCase {
    func testWebSocketURLs() {
        XCTAssertEqual(WebSocketURL("ws://127.0.0.1:9000/ws"), WebSocketURL(host: "127.0.0.1", port: 9000, path: "/ws"))
        XCTAssertEqual(WebSocketURL("ws://localhost")?.port, 80)
        XCTAssertEqual(WebSocketURL("ws://localhost:81")?.path, "/ws")
        XCTAssertEqual(WebSocketURL("http://127.0.0.1:8080"), WebSocketURL(host: "127.0.0.1", port: 8080, path: "/ws"))
        XCTAssertEqual(
            WebSocketURL("http://127.0.0.1:8080/")?.path, "/ws", "the dashboard URL `herald serve` prints is the server's address")
        XCTAssertEqual(WebSocketURL("ws://127.0.0.1:8080/")?.path, "/", "a ws:// URL's path is taken as given")
        XCTAssertEqual(WebSocketURL("ws://localhost")?.isSecure, false)
        XCTAssertEqual(
            WebSocketURL("wss://example.com/ws?since=3"), WebSocketURL(host: "example.com", port: 443, path: "/ws?since=3", isSecure: true))
        XCTAssertEqual(WebSocketURL("https://127.0.0.1:8443"), WebSocketURL(host: "127.0.0.1", port: 8443, path: "/ws", isSecure: true))
        XCTAssertEqual(WebSocketURL("https://herald.example")?.port, 443)
        XCTAssertEqual(WebSocketURL("https://herald.example")?.description, "wss://herald.example:443/ws")
        XCTAssertEqual(WebSocketURL("http://herald.example")?.description, "ws://herald.example:80/ws")
        XCTAssertNil(WebSocketURL("wss://"))
        XCTAssertNil(WebSocketURL("wss://:443/ws"))
        XCTAssertNil(WebSocketURL("https//example.com"))
        XCTAssertNil(WebSocketURL("ws://host:99999/ws"))
        XCTAssertNil(WebSocketURL("ftp://host/"))
    }
}
