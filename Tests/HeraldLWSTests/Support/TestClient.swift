import Foundation
import HeraldEngine
import HeraldLWS
import HeraldServer
import HeraldTestSupport
import XCTest

/// A WebSocket client for tests: sends JSON, and waits for messages by condition (never by sleeping).
final class TestClient {
    let client: WebSocketClient
    /// Every message received so far, parsed, in order.
    private(set) var received: [JSONValue] = []
    private(set) var closed: (code: UInt16?, reason: String)?

    init(_ client: WebSocketClient) { self.client = client }

    func send(_ value: JSONValue) { client.send(JSONWriter.string(value)) }

    /// Reads until a message satisfies `predicate`; fails the test after `timeout` seconds.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Double = 15, file: StaticString = #filePath, line: UInt = #line,
        _ predicate: (JSONValue) -> Bool
    ) -> JSONValue? {
        if let found = received.first(where: predicate) { return found }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            guard let event = client.next(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { break }
            switch event {
            case .message(let text):
                guard let value = try? JSONParser.parse(text, maxDepth: 64) else {
                    XCTFail("not JSON: \(text)", file: file, line: line)
                    continue
                }
                received.append(value)
                if predicate(value) { return value }
            case .closed(let code, let reason):
                closed = (code, reason)
                XCTFail(
                    "connection closed (\(code.map(String.init) ?? "no code") \(reason)) while waiting for \(what)", file: file, line: line)
                return nil
            case .open:
                continue
            }
        }
        XCTFail("timed out waiting for \(what)", file: file, line: line)
        return nil
    }

    /// Waits for the connection to close and returns the code the server sent.
    func waitForClose(timeout: Double = 15) -> UInt16?? {
        if let closed { return .some(closed.code) }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            guard let event = client.next(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { break }
            if case .message(let text) = event, let value = try? JSONParser.parse(text, maxDepth: 64) { received.append(value) }
            if case .closed(let code, let reason) = event {
                closed = (code, reason)
                return .some(code)
            }
        }
        return nil
    }

    /// Events (messages with a seq) received so far, excluding the snapshot.
    var events: [JSONValue] { received.filter { $0["type"]?.stringValue != "snapshot" && $0["seq"] != nil } }

    func jobState(_ id: String) -> String? {
        received.last { $0["type"]?.stringValue == "job" && $0["job"]?["id"]?.stringValue == id }?["job"]?["state"]?.stringValue
    }

    func close() { client.close() }
}

extension JSONValue {
    var type: String? { self["type"]?.stringValue }
    var seq: Int64? { self["seq"]?.intValue }
}
